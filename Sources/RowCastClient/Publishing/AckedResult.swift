import RowCastJSON

/// The outcome of one request sent by an ``AckedPublisher``.
public struct AckedResult: Sendable {
    /// The request's `req` number (1 for the first request of the publisher).
    public let number: Int
    /// The request as sent (with `client` and `req`).
    public let request: JSONValue
    /// The daemon's reply (`ok:true`), or the error: the daemon's refusal, or `timeout` when
    /// no answer came in time (the request may or may not have been applied).
    public let result: Result<JSONValue, RowCastClientError>
    /// How many times it was sent.
    public let attempts: Int
}
