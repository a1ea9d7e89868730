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
    /// The authenticated client that sent it (its connection's User-Id), or nil when the
    /// connection is not authenticated (ipc://, or CURVE off): then nothing is checked.
    public var principal: String?

    /// A message from its parts.
    public init(origin: Origin, body: [UInt8], frameCount: Int = 1, principal: String? = nil) {
        self.origin = origin
        self.body = body
        self.frameCount = frameCount
        self.principal = principal
    }
}
