import RowCastJSON

/// A failed request or a client-side problem, in the daemon's error vocabulary.
///
/// Errors from the daemon (`ok:false` replies) keep its `code`, `message`, `field`, `feed` and
/// `id`; client-side problems use codes of their own: `timeout`, `socket_error`,
/// `invalid_reply`, `invalid_json` and `invalid_request` (for input files).
public struct RowCastClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error code (`missing_field`, `not_found`, `timeout`, ...).
    public let code: String
    /// What went wrong, naming the thing, and what to do when that is not obvious.
    public let message: String
    /// The request field at fault, when known (`item.id`, `price`).
    public let field: String?
    /// The feed concerned, when known.
    public let feed: String?
    /// The item or section id concerned, when known.
    public let id: String?
    /// The daemon's whole reply, for errors that came from one.
    public let reply: JSONValue?

    /// An error with these members.
    public init(
        code: String, message: String, field: String? = nil, feed: String? = nil, id: String? = nil,
        reply: JSONValue? = nil
    ) {
        self.code = code
        self.message = message
        self.field = field
        self.feed = feed
        self.id = id
        self.reply = reply
    }

    /// An error from a protocol error object (`{"code","message","field","feed","id"}`).
    public init(errorObject: JSONValue, reply: JSONValue? = nil) {
        self.init(
            code: errorObject["code"]?.stringValue ?? "unknown_error",
            message: errorObject["message"]?.stringValue ?? "the daemon gave no message: \(errorObject.compactText)",
            field: errorObject["field"]?.stringValue,
            feed: errorObject["feed"]?.stringValue,
            id: errorObject["id"]?.stringValue,
            reply: reply)
    }

    /// No reply within the time allowed.
    public static func timeout(endpoint: String, seconds: Double, op: String) -> RowCastClientError {
        RowCastClientError(
            code: "timeout",
            message:
                "no reply to \(op) from rowcastd at \(endpoint) within \(formatSeconds(seconds)); the daemon may not be running there (start rowcastd, or pass the right --control endpoint)"
        )
    }

    /// A reply that is not what PROTOCOL.md describes.
    public static func invalidReply(endpoint: String, _ problem: String) -> RowCastClientError {
        RowCastClientError(
            code: "invalid_reply",
            message: "the reply from \(endpoint) \(problem); is a rowcastd speaking protocol 1 there?")
    }

    /// A ZeroMQ failure while using `endpoint`.
    public static func socket(_ error: any Error, endpoint: String, doing action: String) -> RowCastClientError {
        RowCastClientError(code: "socket_error", message: "\(action) \(endpoint) failed: \(error)")
    }

    /// "code: message", the form the CLI prints after "error: ".
    public var description: String { "\(code): \(message)" }
}

/// "5 s", "0.5 s".
func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
}
