import RowCastJSON

/// What a WebSocket connection does with a `{"type":"token","token":...}` message: checks the
/// fresh token and answers the message the client gets. The gateway's user tokens give each
/// connection its own; until they are on, ``TokensOff`` answers.
public protocol SocketTokenHook: Sendable {
    /// Takes `token` as the connection's credentials from now on, or refuses it; returns the
    /// JSON message to send back (`{"event":"token",...}` or `{"event":"error",...}`).
    func refreshToken(_ token: String) async -> JSONValue
}

/// The hook of a gateway without user tokens: every token message is answered
/// `{"event":"error","code":"tokens_off",...}`.
public struct TokensOff: SocketTokenHook {
    /// The hook.
    public init() {}

    /// `{"event":"error","code":"tokens_off",...}`.
    public func refreshToken(_ token: String) async -> JSONValue {
        [
            "event": "error", "code": "tokens_off", "type": "token",
            "message": "this gateway does not take user tokens; the connection goes on as it was",
        ]
    }
}
