import Foundation
import RowCastEngine
import RowCastWire

/// One store shared by the engine loops of one rowcastd (`engine.threads`, docs/OPERATIONS.md,
/// "Engine threads"): every call runs under one lock, so the loops' commits take turns in the
/// store's one writer (SQLite allows one per file), and the store closes, recording a clean
/// stop, when the last loop closes it.
///
/// Commits group across loops: the commits of loops that arrive while another loop's commit is
/// being written wait together, and the first of them writes them all in one transaction
/// (`commit(_:)`), as one loop groups its own batches.
///
/// `@unchecked Sendable`: the wrapped store is touched only under `lock`, the queue of waiting
/// commits only under `queue`.
final class SharedFeedStore: FeedStore, @unchecked Sendable {
    private let store: any FeedStore
    private let lock = NSLock()
    private var openCount: Int
    private var failure: StoreError?
    private let queue = NSCondition()
    private var waiting: [CommitTicket] = []
    private var isWriting = false

    /// One loop's commits, waiting to be written and then to learn how it went.
    private final class CommitTicket {
        let commits: [StoreCommit]
        var outcome: Result<Void, StoreError>?
        init(_ commits: [StoreCommit]) { self.commits = commits }
    }

    private var transactions = 0
    private var groupedCommits = 0

    /// How many transactions the loops' commits took, how many commits they carried, and how
    /// many commits wait now (for the tests of the grouping).
    var grouping: (transactions: Int, commits: Int, waiting: Int) {
        queue.lock()
        defer { queue.unlock() }
        return (transactions, groupedCommits, waiting.count)
    }

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

    /// Writes `commits` with those of every other loop waiting meanwhile, in one transaction,
    /// and returns (or throws) once that transaction is done: a failure fails every loop of the
    /// group, and each rolls back its own batches, as after a failure of its own commit.
    func commit(_ commits: [StoreCommit]) throws(StoreError) {
        let ticket = CommitTicket(commits)
        queue.lock()
        waiting.append(ticket)
        while ticket.outcome == nil {
            guard !isWriting else {
                queue.wait()
                continue
            }
            // No loop is writing: this one writes every commit waiting, its own among them.
            isWriting = true
            let group = waiting
            waiting = []
            queue.unlock()
            let outcome: Result<Void, StoreError>
            do {
                try locked { () throws(StoreError) in try store.commit(group.flatMap(\.commits)) }
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            queue.lock()
            transactions += 1
            groupedCommits += group.count
            for member in group { member.outcome = outcome }
            isWriting = false
            queue.broadcast()
        }
        let outcome = ticket.outcome!
        queue.unlock()
        try outcome.get()
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
