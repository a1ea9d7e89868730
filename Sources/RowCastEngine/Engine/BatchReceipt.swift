/// What the sender of a batch needs once the batch is committed, carried with the batch through
/// the pipeline (`DurableEngine.submit(_:receipt:)`) so that nothing outside it has to be kept
/// in step with it: when the batch's first message was read, and where each control request's
/// reply goes. The engine never looks inside.
public struct BatchReceipt: Sendable {
    /// When the batch's first message was read (the publish latency is measured from it).
    public var receivedAt: ContinuousClock.Instant
    /// Where each control request of the batch is answered, indexed by its reply token
    /// (`IncomingMessage.Origin.control(replyTo:)`).
    public var replyRoutes: [ReplyRoute]

    /// A receipt for a batch read at `receivedAt` whose requests are answered at `replyRoutes`.
    public init(receivedAt: ContinuousClock.Instant, replyRoutes: [ReplyRoute]) {
        self.receivedAt = receivedAt
        self.replyRoutes = replyRoutes
    }
}

/// The frames that address one reply (for a ZeroMQ ROUTER socket: the peer's identity frames
/// and the empty delimiter), sent before the reply's body.
public struct ReplyRoute: Sendable {
    /// The frames before the body.
    public var frames: [[UInt8]]

    /// A route of `frames`.
    public init(frames: [[UInt8]]) { self.frames = frames }

    /// The whole reply: the route's frames, then `body`.
    public func replyFrames(_ body: [UInt8]) -> [[UInt8]] { frames + [body] }
}
