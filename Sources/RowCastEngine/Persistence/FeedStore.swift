import RowCastWire

/// Where feeds live durably. The daemon's loop commits every batch through it before any
/// ack or delta of the batch goes out, and rebuilds the engine from it at start.
///
/// Implementations are not expected to be `Sendable`: the store belongs to the loop thread,
/// which lends it to its commit thread for one commit at a time.
public protocol FeedStore: AnyObject {
    /// Everything stored, to rebuild the engine at start.
    func load() throws(StoreError) -> StoredState
    /// Writes `commits` (consecutive batches), in order, in one transaction. When it returns,
    /// they survive a crash of the process (and power loss, with `full` durability); when it
    /// throws, nothing of them was written. Called from the commit thread (`CommitWriter`)
    /// while the loop thread waits or does not touch the store.
    func commit(_ commits: [StoreCommit]) throws(StoreError)
    /// The named feeds as last committed (names the store never had are left out), to roll the
    /// engine back after a failed commit.
    func feeds(named names: [String]) throws(StoreError) -> [RestoredFeed]
    /// What a node that takes `partitions` over starts from: the feeds, action events and
    /// quarantine entries of those partitions, and the whole ledger and renderer records.
    func load(partitions: Set<Partition>) throws(StoreError) -> StoredState
    /// Every feed of `partitions` as last committed (`Partition(feed:)` of its name), in order
    /// of name: what an engine that takes those partitions over starts from.
    func feeds(inPartitions partitions: Set<Partition>) throws(StoreError) -> [RestoredFeed]
    /// The remembered answers as last committed.
    func ledgerEntries() throws(StoreError) -> [LedgerEntry]
    /// The quarantined items as last committed, oldest first.
    func quarantinedItems() throws(StoreError) -> [QuarantinedItem]
    /// Records a clean stop and closes; the store is not used after.
    func close()
    /// Why the last `close()` could not record a clean stop (a full disk, say), or nil.
    var closeFailure: StoreError? { get }
    /// After a commit failed for lack of space: why the disk still has too little room to try
    /// another (a `full` error naming the free space), or nil once it has. It looks only at the
    /// file system, so the loop thread may ask while the commit thread writes.
    func spaceShortage() -> StoreError?
    /// How much of its delta log the store reads back from now on (`load`, `feeds(named:)`).
    func keepHistory(within limits: HistoryLimits)
    /// Forgets what the store caches of the feeds of `partitions`: a cluster node gave them up,
    /// and another node writes them from now on.
    func forget(partitions: Set<Partition>)
}

extension FeedStore {
    /// No failure: stores whose close cannot fail.
    public var closeFailure: StoreError? { nil }

    /// Always room: stores that cannot run out of space.
    public func spaceShortage() -> StoreError? { nil }

    /// Nothing to limit: stores without a delta log.
    public func keepHistory(within limits: HistoryLimits) {}

    /// `load()`, filtered to `partitions` (stores that load everything at once).
    public func load(partitions: Set<Partition>) throws(StoreError) -> StoredState {
        var state = try load()
        state.feeds = state.feeds.filter { partitions.contains(Partition(feed: $0.name)) }
        state.events = state.events.filter { partitions.contains(Partition(feed: $0.feed)) }
        state.quarantine = state.quarantine.filter { partitions.contains(Partition(feed: $0.feed)) }
        return state
    }

    /// Nothing cached: stores that read every feed's row when they write it.
    public func forget(partitions: Set<Partition>) {}

    /// Writes one batch in one transaction (see `commit(_:)` for several).
    public func commit(_ commit: StoreCommit) throws(StoreError) {
        try self.commit([commit])
    }
}
