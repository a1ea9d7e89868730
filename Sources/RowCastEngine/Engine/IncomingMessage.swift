/// One message read from a socket, as the engine receives it.
public struct IncomingMessage: Sendable {
    /// Where the message came from, and where its reply goes.
    public enum Origin: Sendable, Equatable {
        /// The PULL socket: no reply; errors go to the error topic.
        case ingest
        /// The ROUTER socket: the reply goes to the caller this token stands for.
        case control(replyTo: Int)
    }

    /// Where the message came from.
    public var origin: Origin
    /// The request bytes.
    public var body: [UInt8]
    /// How many frames the message had (an ingest message must have exactly one).
    public var frameCount: Int
    /// The body's full size in bytes: more than `body.count` when only its first bytes were
    /// kept (a message over the size limit).
    public var size: Int
    /// The authenticated client that sent it (its connection's User-Id), or nil when the
    /// connection is not authenticated (ipc://, or CURVE off): then nothing is checked.
    public var principal: String?
    /// The connection a control request came on (a hash of its ROUTER identity), so that the
    /// requests of one connection keep their order when others overtake a request that waits
    /// on a plugin host; nil for ingest (ordered per feed only) or when unknown.
    public var connection: UInt64?

    /// A message from its parts; `size` defaults to the whole of `body`.
    public init(
        origin: Origin, body: [UInt8], frameCount: Int = 1, size: Int? = nil, principal: String? = nil,
        connection: UInt64? = nil
    ) {
        self.origin = origin
        self.body = body
        self.frameCount = frameCount
        self.size = size ?? body.count
        self.principal = principal
        self.connection = connection
    }
}
