/// A published delta as the store keeps it, so that `since` can be answered from history
/// after a restart (docs/OPERATIONS.md, "Delta history").
public struct StoredDelta: Sendable, Equatable {
    /// The feed.
    public var feed: String
    /// The feed's epoch when the delta was published.
    public var epoch: String
    /// The delta's seq.
    public var seq: UInt64
    /// The delta as published.
    public var body: [UInt8]

    /// A stored delta from its parts.
    public init(feed: String, epoch: String, seq: UInt64, body: [UInt8]) {
        self.feed = feed
        self.epoch = epoch
        self.seq = seq
        self.body = body
    }
}
