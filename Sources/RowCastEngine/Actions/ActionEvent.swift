/// One action event of a feed, as published on `actions.<feed>` and kept for producers that
/// pull them (`events`): its place in the feed's event sequence and its JSON body.
public struct ActionEvent: Sendable, Equatable {
    /// The feed.
    public var feed: String
    /// Its place in the feed's event sequence: 1, 2, 3, ... with no gaps.
    public var seq: UInt64
    /// The event object exactly as published.
    public var body: [UInt8]

    /// An event from its parts.
    public init(feed: String, seq: UInt64, body: [UInt8]) {
        self.feed = feed
        self.seq = seq
        self.body = body
    }
}
