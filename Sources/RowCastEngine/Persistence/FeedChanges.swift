/// What one batch changed in one feed, for the durable store to write in the batch's
/// transaction: the new state of every item and section the batch touched (nil when it is
/// gone), and the feed's counters after the batch.
public struct FeedChanges: Sendable {
    /// The feed's name.
    public var feed: String
    /// The feed's seq after the batch.
    public var seq: UInt64
    /// The feed's epoch.
    public var epoch: String
    /// The next first-arrival rank the feed will hand out.
    public var nextArrival: UInt64
    /// True when the batch replaced the whole feed (a reset): the store drops every item and
    /// section of the feed before writing `items` and `sections`.
    public var replacedAll: Bool
    /// Touched items by id: the new state, or nil when deleted.
    public var items: [(id: String, item: PersistedItem?)]
    /// Touched sections by id: the new state, or nil when deleted.
    public var sections: [(id: String, section: PersistedSection?)]
    /// The client that created the feed (`Feed.owner`), or nil.
    public var owner: String?

    /// The changes of `feed` with these counters (the benchmark writes them without an engine).
    public init(
        feed: String, seq: UInt64, epoch: String, nextArrival: UInt64, replacedAll: Bool,
        items: [(id: String, item: PersistedItem?)], sections: [(id: String, section: PersistedSection?)]
    ) {
        self.feed = feed
        self.seq = seq
        self.epoch = epoch
        self.nextArrival = nextArrival
        self.replacedAll = replacedAll
        self.items = items
        self.sections = sections
    }
}

/// A feed as the durable store hands it back at start.
public struct RestoredFeed: Sendable {
    /// The feed's name.
    public var name: String
    /// The seq it had reached.
    public var seq: UInt64
    /// Its epoch.
    public var epoch: String
    /// The next first-arrival rank.
    public var nextArrival: UInt64
    /// Every item.
    public var items: [PersistedItem]
    /// Every section (declared, or created by items).
    public var sections: [PersistedSection]
    /// Items whose record is damaged: not in `items`.
    public var damaged: [DamagedItem]
    /// The client that created the feed, or nil.
    public var owner: String?
    /// The logged deltas of the feed's current epoch that lead, without a gap, up to `seq`,
    /// oldest first: the history `since` is answered from.
    public var history: [(seq: UInt64, body: [UInt8])] = []

    /// A restored feed from its parts.
    public init(
        name: String, seq: UInt64, epoch: String, nextArrival: UInt64, items: [PersistedItem],
        sections: [PersistedSection], damaged: [DamagedItem] = []
    ) {
        self.name = name
        self.seq = seq
        self.epoch = epoch
        self.nextArrival = nextArrival
        self.items = items
        self.sections = sections
        self.damaged = damaged
    }
}
