/// How much state clients may make rowcastd hold (the `limits.max_*` keys of the
/// configuration). A feed operation that would pass one is refused whole with
/// `limit_exceeded`, naming the limit; nothing already stored is ever dropped to make room,
/// and a restart loads whatever was stored even when a limit was lowered since.
public struct EngineLimits: Sendable, Equatable {
    /// The most feeds (`limits.max_feeds`).
    public var feeds: Int
    /// The most items in one feed (`limits.max_items_per_feed`).
    public var itemsPerFeed: Int
    /// The most sections in one feed, declared or implied by an item's `section`
    /// (`limits.max_sections_per_feed`).
    public var sectionsPerFeed: Int
    /// The most bytes of item JSON plus rendered rows over every feed
    /// (`limits.max_stored_bytes`).
    public var storedBytes: Int
    /// The most recent deltas kept per feed for `since` (`limits.history_deltas`; 0: none).
    public var historyDeltas: Int
    /// The most bytes of recent deltas kept over every feed (`limits.history_bytes`); the
    /// oldest go first.
    public var historyBytes: Int

    /// The documented defaults: 100,000 feeds, 1,000,000 items per feed, 10,000 sections per
    /// feed, 768 MiB stored, 1,000 deltas of history per feed and 64 MiB of it in all. See
    /// docs/OPERATIONS.md, "Limits".
    public init(
        feeds: Int = 100_000, itemsPerFeed: Int = 1_000_000, sectionsPerFeed: Int = 10_000,
        storedBytes: Int = 768 << 20,
        historyDeltas: Int = 1000, historyBytes: Int = 64 << 20
    ) {
        self.feeds = feeds
        self.itemsPerFeed = itemsPerFeed
        self.sectionsPerFeed = sectionsPerFeed
        self.storedBytes = storedBytes
        self.historyDeltas = historyDeltas
        self.historyBytes = historyBytes
    }

    /// The `limits` status members these limits add.
    public var json: [(key: String, value: Int)] {
        [
            ("max_feeds", feeds), ("max_items_per_feed", itemsPerFeed), ("max_sections_per_feed", sectionsPerFeed),
            ("max_stored_bytes", storedBytes),
            ("history_deltas", historyDeltas), ("history_bytes", historyBytes),
        ]
    }
}
