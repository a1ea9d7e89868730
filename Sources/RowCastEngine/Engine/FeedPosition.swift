import RowCastJSON

/// Where a feed's history stands: its epoch and the seq of its last delta. Published as a
/// `position` event on the feed's own topic (`rows.<feed>\0`), so that a replica that missed
/// the last deltas learns it without waiting for the next change (docs/PROTOCOL.md,
/// "Positions").
public struct FeedPosition: Sendable, Equatable {
    /// The feed.
    public var feed: String
    /// Its epoch.
    public var epoch: String
    /// The seq of its last delta (0 before the first).
    public var seq: UInt64

    /// A position from its parts.
    public init(feed: String, epoch: String, seq: UInt64) {
        self.feed = feed
        self.epoch = epoch
        self.seq = seq
    }

    /// The position of `feed` as it stands.
    init(_ feed: Feed) {
        self.init(feed: feed.name, epoch: feed.epoch, seq: feed.seq)
    }

    /// `{"event":"position","feed":...,"epoch":...,"seq":...}` on `rows.<feed>\0`.
    public var publication: Publication {
        var writer = JSONWriter(capacity: 64 + feed.utf8.count)
        writer.writeRaw("{\"event\":\"position\",\"feed\":")
        writer.write(string: feed)
        writer.writeRaw(",\"epoch\":")
        writer.write(string: epoch)
        writer.writeRaw(",\"seq\":")
        writer.write(integer: Int64(seq))
        writer.writeRaw("}")
        return Publication(topic: Topic.rows(feed), body: writer.bytes)
    }
}
