import RowCastPluginHosting

/// Everything the durable store hands back at start.
public struct StoredState: Sendable {
    /// Every feed.
    public var feeds: [RestoredFeed]
    /// The remembered answers to acked requests.
    public var ledger: [LedgerEntry]
    /// Which renderer drew each item and header type when its rows were last published.
    public var renderers: [RendererRecord]
    /// Whether the stored history is known to continue what subscribers saw.
    public var continuity: StoreContinuity
    /// The kept action events of every feed, oldest first per feed.
    public var events: [ActionEvent]
    /// The quarantined items, oldest first.
    public var quarantine: [QuarantinedItem] = []

    /// A state from its parts.
    public init(
        feeds: [RestoredFeed], ledger: [LedgerEntry], renderers: [RendererRecord], continuity: StoreContinuity,
        events: [ActionEvent] = []
    ) {
        self.feeds = feeds
        self.ledger = ledger
        self.renderers = renderers
        self.continuity = continuity
        self.events = events
    }
}

/// Whether a store's feeds can continue their histories (same epoch, next seq) after a start.
public enum StoreContinuity: Sendable, Equatable {
    /// A new, empty store.
    case fresh
    /// The store holds exactly the last committed state: every feed continues.
    case continued
    /// Committed state may be missing (a store restored from an older copy, or commits lost
    /// to a power failure): every feed starts a new epoch, so subscribers resync.
    case broken(reason: String)
}

/// The renderer of one item or header type, as recorded with the rows it drew.
public struct RendererRecord: Sendable, Equatable, Hashable {
    /// Item types or section header types.
    public enum Kind: String, Sendable {
        /// An item type.
        case item
        /// A section (header) type.
        case header
    }

    /// Item or header.
    public var kind: Kind
    /// The type name.
    public var type: String
    /// `RowRendering.rendererIdentity` of the type (nil when nothing rendered it).
    public var identity: String?

    /// A record from its parts.
    public init(kind: Kind, type: String, identity: String?) {
        self.kind = kind
        self.type = type
        self.identity = identity
    }
}

/// A feed's counters alone, for commits that change no item (a plugin reload re-rendered).
public struct FeedCounters: Sendable, Equatable {
    /// The feed.
    public var feed: String
    /// Its seq.
    public var seq: UInt64
    /// Its epoch.
    public var epoch: String

    /// Counters from their parts.
    public init(feed: String, seq: UInt64, epoch: String) {
        self.feed = feed
        self.seq = seq
        self.epoch = epoch
    }
}

/// One transaction's worth of changes.
public struct StoreCommit: Sendable {
    /// Feeds dropped: everything of theirs is deleted, before `feeds` is written (a feed
    /// dropped and created again in one batch is in both).
    public var droppedFeeds: [String] = []
    /// Item and section changes, with each feed's counters.
    public var feeds: [FeedChanges] = []
    /// Counter changes of feeds whose items did not change.
    public var counters: [FeedCounters] = []
    /// Answers remembered and forgotten.
    public var ledger = LedgerChanges()
    /// Renderer identities to record (insert or replace).
    public var renderers: [RendererRecord] = []
    /// New action events, in order.
    public var events: [ActionEvent] = []
    /// How many events to keep per feed: older ones of the feeds in `events` are dropped.
    public var eventRetention = ActionEventLog.defaultRetention
    /// Deltas published by the commit's batches, for the store's delta log.
    public var history: [StoredDelta] = []
    /// How many deltas the log keeps per feed: older ones of the feeds in `history` are dropped.
    public var historyRetention = 0
    /// When set, deltas logged longer ago than this are dropped from every feed.
    public var historyMaximumAge: Duration?
    /// Quarantine entries added and released.
    public var quarantine = QuarantineChanges()
    /// Damaged item records to mark as found (`DamagedItem.known` at the next start), so that
    /// their feed starts a new epoch once, not at every start.
    public var damagedItems: [DamagedItem] = []

    /// An empty commit.
    public init() {}

    /// Whether there is nothing to write.
    public var isEmpty: Bool {
        droppedFeeds.isEmpty && feeds.isEmpty && counters.isEmpty && ledger.isEmpty && renderers.isEmpty
            && events.isEmpty
            && damagedItems.isEmpty && history.isEmpty && historyMaximumAge == nil && quarantine.isEmpty
    }
}
