/// A message to publish on the PUB socket: topic frame and body.
public struct Publication: Sendable, Equatable {
    /// The topic frame (NUL-terminated, see `Topic`).
    public var topic: [UInt8]
    /// The JSON body.
    public var body: [UInt8]

    /// A publication from its parts.
    public init(topic: [UInt8], body: [UInt8]) {
        self.topic = topic
        self.body = body
    }
}

/// A reply to one control request.
public struct Reply: Sendable, Equatable {
    /// The token of the caller, from `IncomingMessage.Origin.control`.
    public var token: Int
    /// The JSON body.
    public var body: [UInt8]

    /// A reply from its parts.
    public init(token: Int, body: [UInt8]) {
        self.token = token
        self.body = body
    }
}

/// What one batch produced: publish these first, then send these replies, in order.
public struct EngineOutput: Sendable {
    /// Deltas and events, in the order they must be published.
    public var publications: [Publication] = []
    /// Replies, in the order the requests arrived.
    public var replies: [Reply] = []
    /// Requests the engine does not answer (`reload`): the daemon answers each one, with the
    /// same token, after publishing and replying the rest of the batch.
    public var deferred: [DeferredRequest] = []
    /// Snapshot requests whose replies are still to be written (only when the engine
    /// `writesSnapshotsLater`); their replies go after the rest of the batch's.
    public var snapshots: [SnapshotJob] = []
    /// Where each feed that published a delta in this batch stands after it, for the
    /// `position` events the daemon publishes once the batch's deltas are out.
    public var positions: [FeedPosition] = []
    /// What its sender needs to send it (when it was read, where its replies go), when the
    /// batch was submitted with one (`DurableEngine.submit(_:receipt:)`).
    public var receipt: BatchReceipt?

    /// An empty output.
    public init() {}
}

/// A control request handed to the daemon because only the daemon can act on it (`reload`).
public struct DeferredRequest: Sendable {
    /// The token of the caller, from `IncomingMessage.Origin.control`.
    public var token: Int
    /// The decoded request.
    public var request: Request

    /// A deferred request from its parts.
    public init(token: Int, request: Request) {
        self.token = token
        self.request = request
    }
}
