import RowCastKit

/// Names one acked request for deduplication: the sending client's name and its request id
/// (`req`, as compact JSON text, so that `7` and `"7"` stay different).
public struct LedgerKey: Hashable, Sendable {
    /// The `client` field of the request.
    public var client: String
    /// The `req` field of the request, as compact JSON.
    public var req: String

    /// A key from its parts.
    public init(client: String, req: String) {
        self.client = client
        self.req = req
    }

    /// The key of a request that carries both `client` and `req`; nil otherwise (such a
    /// request is not deduplicated).
    public init?(client: String?, req: JSONValue?) {
        guard let client, let req else { return nil }
        self.init(client: client, req: String(decoding: req.serialized(), as: UTF8.self))
    }
}
