import RowCastJSON
import RowCastWire

/// What a cluster node reads of a message before it decides who applies it: the feed it names
/// (so its partition), and what a refusal echoes (`op`, `req`, `client`). Read from the
/// message's top-level members without decoding the request; a message that does not parse
/// names no feed, and the engine that takes it answers why.
public struct RequestRouting {
    private let correlation: Correlation

    /// What `body` says of itself.
    public init(body: [UInt8]) {
        correlation = Correlation(prefix: body)
    }

    /// The feed the request names, when it names one.
    public var feed: String? { correlation.feed.flatMap { Names.isValidFeed($0) ? $0 : nil } }

    /// The operation the request names.
    public var op: String? { correlation.op }

    /// Whether the request names its `client` and `req`: sent again, it is answered from the
    /// ledger instead of being applied twice.
    public var isRetrySafe: Bool { correlation.client != nil && validReq != nil }

    /// Whether `reply` is the last reply to its request: a snapshot in parts ends with the part
    /// numbered `parts - 1`; every other reply is the only one.
    public static func isLastReply(_ reply: [UInt8]) -> Bool {
        var part: Double?
        var parts: Double?
        _ = try? JSONParser.read(reply) { reader in
            try reader.beginObject()
            while let key = try reader.nextKey() {
                switch key {
                case "part": part = try reader.readValue().numberValue
                case "parts": parts = try reader.readValue().numberValue
                default: try reader.skipValue()
                }
            }
        }
        guard let part, let parts else { return true }
        return part + 1 >= parts
    }

    /// The partition of that feed.
    public var partition: Partition? { feed.map(Partition.init(feed:)) }

    /// The reply refusing the request with `code` and `message` (for the control socket).
    public func refusal(_ code: ErrorCode, _ message: String) -> [UInt8] {
        ReplyBuilder.failure(
            RowCastError(code, message, feed: feed), op: correlation.op, req: validReq, client: correlation.client)
    }

    /// The error event refusing the request with `code` and `message` (for ingest, which gets
    /// no reply).
    public func refusalEvent(_ code: ErrorCode, _ message: String) -> Publication {
        ReplyBuilder.errorEvent(RowCastError(code, message, feed: feed), req: validReq, client: correlation.client)
    }

    private var validReq: RequestID? { correlation.req.flatMap { $0.isValid ? $0 : nil } }
}
