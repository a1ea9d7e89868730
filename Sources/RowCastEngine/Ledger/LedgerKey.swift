import RowCastJSON

/// Names one acked request for deduplication: the sending client's name and its request id
/// (`req`, as the exact JSON text sent, so that `7` and `"7"` stay different, and so do
/// `123456789012345678` and `123456789012345679`).
public struct LedgerKey: Hashable, Sendable {
    /// The `client` field of the request.
    public var client: String
    /// The `req` field of the request, as the exact JSON text sent (`RequestID.json`).
    public var req: String

    /// A key from its parts.
    public init(client: String, req: String) {
        self.client = client
        self.req = req
    }

    /// The key of a request that carries both `client` and `req`; nil otherwise (such a
    /// request is not deduplicated), and nil for a `client` with U+0000, which no client name
    /// holds (docs/PROTOCOL.md, "Names and limits"): that request is refused for its `client`,
    /// the same way each time, and nothing keyed by it is stored (PostgreSQL's text takes no
    /// U+0000).
    public init?(client: String?, req: RequestID?) {
        guard let client, let req, !client.utf8.contains(0) else { return nil }
        self.init(client: client, req: req.json)
    }
}
