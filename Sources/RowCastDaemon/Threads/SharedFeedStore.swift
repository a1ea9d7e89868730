import Foundation
import RowCastEngine
import RowCastWire

/// One store shared by the engine loops of one rowcastd (`engine.threads`, docs/OPERATIONS.md,
/// "Engine threads"): every call runs under one lock, so the loops' commits take turns in the
/// store's one writer (SQLite allows one per file), and the store closes, recording a clean
/// stop, when the last loop closes it.
///
/// `@unchecked Sendable`: the wrapped store is touched only under `lock`.
final class SharedFeedStore: FeedStore, @unchecked Sendable {
    private let store: any FeedStore
    private let lock = NSLock()
    private var openCount: Int
    private var failure: StoreError?

    /// `store`, to be closed by `users` calls of `close()`.
    init(_ store: any FeedStore, users: Int) {
        self.store = store
        openCount = users
    }

    /// The wrapped store (for what only one loop asks of it, e.g. its round trips).
    var underlying: any FeedStore { store }

    func load() throws(StoreError) -> StoredState {
        try locked { () throws(StoreError) in try store.load() }
    }

    func commit(_ commits: [StoreCommit]) throws(StoreError) {
        try locked { () throws(StoreError) in try store.commit(commits) }
    }

    func feeds(named names: [String]) throws(StoreError) -> [RestoredFeed] {
        try locked { () throws(StoreError) in try store.feeds(named: names) }
    }

    func load(partitions: Set<Partition>) throws(StoreError) -> StoredState {
        try locked { () throws(StoreError) in try store.load(partitions: partitions) }
    }

    func feeds(inPartitions partitions: Set<Partition>) throws(StoreError) -> [RestoredFeed] {
        try locked { () throws(StoreError) in try store.feeds(inPartitions: partitions) }
    }

    func ledgerEntries() throws(StoreError) -> [LedgerEntry] {
        try locked { () throws(StoreError) in try store.ledgerEntries() }
    }

    func quarantinedItems() throws(StoreError) -> [QuarantinedItem] {
        try locked { () throws(StoreError) in try store.quarantinedItems() }
    }

    /// Closes the store once every loop closed it; before that, only counts.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        openCount -= 1
        guard openCount == 0 else { return }
        store.close()
        failure = store.closeFailure
    }

    var closeFailure: StoreError? {
        lock.lock()
        defer { lock.unlock() }
        return failure
    }

    /// Looks only at the file system (see `FeedStore.spaceShortage`): no lock.
    func spaceShortage() -> StoreError? { store.spaceShortage() }

    func keepHistory(within limits: HistoryLimits) {
        lock.lock()
        defer { lock.unlock() }
        store.keepHistory(within: limits)
    }

    func forget(partitions: Set<Partition>) {
        lock.lock()
        defer { lock.unlock() }
        store.forget(partitions: partitions)
    }

    private func locked<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
