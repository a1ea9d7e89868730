import HTTPTypes

/// Why a user token is not accepted: `token_missing`, `token_expired`, `token_invalid`, or
/// `token_user_changed` (a refresh naming another user). Answered as HTTP 401.
public struct TokenRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The refusal's code.
    public let code: String
    /// What is wrong and what to do.
    public let message: String

    /// No token came with the request.
    public static let missing = TokenRefusal(
        code: "token_missing",
        message:
            "this gateway needs a user token: send Authorization: Bearer TOKEN, or ?access_token=TOKEN on a stream (EventSource cannot set headers)"
    )

    /// The token's `exp` has passed.
    public static func expired(user: String) -> TokenRefusal {
        TokenRefusal(
            code: "token_expired",
            message: "the token of user \"\(user)\" has expired; get a fresh one from your sign-in")
    }

    /// The token is malformed, signed by no key of the gateway's, or its claims are wrong.
    public static func invalid(_ why: String) -> TokenRefusal {
        TokenRefusal(code: "token_invalid", message: "the token is not valid: \(why)")
    }

    /// A refresh whose token names another user than the connection's.
    public static func userChanged(from user: String, to other: String) -> TokenRefusal {
        TokenRefusal(
            code: "token_user_changed",
            message:
                "the fresh token is user \"\(other)\"'s, this connection is user \"\(user)\"'s; open a new connection to change users"
        )
    }

    /// The refusal as the gateway's HTTP 401 error.
    public var gatewayError: GatewayError {
        GatewayError(status: .unauthorized, code: code, message: message)
    }

    /// "code: message".
    public var description: String { "\(code): \(message)" }
}
