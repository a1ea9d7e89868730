import Foundation
import RowCastEngine
import RowCastWire
import Testing

@testable import RowCastDaemon

/// The store the engine loops share: commits that wait while another loop writes go in one
/// transaction, and its outcome reaches every loop of the group.
struct SharedFeedStoreTests {
    /// A store whose first commit waits until the test lets it go, and whose commits fail once
    /// `failing` is set; it records what each commit carried.
    final class GatedStore: FeedStore, @unchecked Sendable {  // `written` and `failing` under `lock`
        let gate = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var written: [[String]] = []
        private var failing = false
        private var gated = true
        private var held = false

        var transactions: [[String]] { lock.withLock { written } }
        /// Whether a commit waits at the gate.
        var isHeld: Bool { lock.withLock { held } }
        func failFromNow() { lock.withLock { failing = true } }
        func recover() { lock.withLock { failing = false } }

        func commit(_ commits: [StoreCommit]) throws(StoreError) {
            let first = lock.withLock {
                defer { gated = false }
                held = gated
                return gated
            }
            if first { gate.wait() }
            lock.lock()
            defer { lock.unlock() }
            held = false
            guard !failing else { throw StoreError(.io, path: "test", message: "the disk failed") }
            written.append(commits.flatMap(\.droppedFeeds))
        }

        func load() throws(StoreError) -> StoredState {
            StoredState(feeds: [], ledger: [], renderers: [], continuity: .continued, events: [])
        }
        func feeds(named names: [String]) throws(StoreError) -> [RestoredFeed] { [] }
        func feeds(inPartitions partitions: Set<Partition>) throws(StoreError) -> [RestoredFeed] { [] }
        func ledgerEntries() throws(StoreError) -> [LedgerEntry] { [] }
        func quarantinedItems() throws(StoreError) -> [QuarantinedItem] { [] }
        func close() {}
    }

    /// A commit that names `label` (as a dropped feed, which the gated store records).
    static func commit(_ label: String) -> StoreCommit {
        var commit = StoreCommit()
        commit.droppedFeeds = [label]
        return commit
    }

    /// Starts a thread that commits `label` through `shared`; the outcome lands in `outcomes`.
    static func commitInBackground(
        _ label: String, _ shared: SharedFeedStore, _ outcomes: LockedOutcomes, _ done: DispatchGroup
    ) {
        done.enter()
        Thread {
            do {
                try shared.commit([Self.commit(label)])
                outcomes.record(label, "ok")
            } catch {
                outcomes.record(label, "failure: \(error)")
            }
            done.leave()
        }.start()
    }

    final class LockedOutcomes: @unchecked Sendable {  // `values` under `lock`
        private let lock = NSLock()
        private var values: [String: String] = [:]
        func record(_ label: String, _ outcome: String) { lock.withLock { values[label] = outcome } }
        var all: [String: String] { lock.withLock { values } }
    }

    /// Waits (at most 10 s) until `condition` holds.
    static func waitFor(_ what: String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { throw GroupingFailure("never: \(what)") }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    /// Waits (at most 10 s) until `count` commits wait behind the one being written.
    static func waitForWaiting(_ count: Int, in shared: SharedFeedStore) throws {
        try waitFor("\(count) commits waiting") { shared.grouping.waiting >= count }
    }

    @Test("commits that arrive while another loop writes go together in the next transaction")
    func waitingCommitsGoTogether() throws {
        let store = GatedStore()
        let shared = SharedFeedStore(store, users: 3)
        let outcomes = LockedOutcomes()
        let done = DispatchGroup()
        Self.commitInBackground("a", shared, outcomes, done)
        // "a" is being written (held at the gate); "b" and "c" wait behind it.
        try Self.waitFor("the first commit to start") { store.isHeld }
        Self.commitInBackground("b", shared, outcomes, done)
        Self.commitInBackground("c", shared, outcomes, done)
        try Self.waitForWaiting(2, in: shared)
        store.gate.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(store.transactions.count == 2)
        #expect(store.transactions.first == ["a"])
        #expect(store.transactions.last?.sorted() == ["b", "c"])
        #expect(outcomes.all == ["a": "ok", "b": "ok", "c": "ok"])
        #expect(shared.grouping.transactions == 2 && shared.grouping.commits == 3)
    }

    @Test("a failed transaction fails every loop whose commits it carried, and the next one writes")
    func failureReachesTheWholeGroup() throws {
        let store = GatedStore()
        let shared = SharedFeedStore(store, users: 3)
        let outcomes = LockedOutcomes()
        let done = DispatchGroup()
        store.failFromNow()
        Self.commitInBackground("a", shared, outcomes, done)
        try Self.waitFor("the first commit to start") { store.isHeld }
        Self.commitInBackground("b", shared, outcomes, done)
        try Self.waitForWaiting(1, in: shared)
        store.gate.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(outcomes.all.count == 2)
        #expect(outcomes.all.values.allSatisfy { $0.hasPrefix("failure") }, "\(outcomes.all)")
        #expect(store.transactions.isEmpty)
        // "a" failed alone, then "b" in a transaction of its own, or both in one: two loops at most.
        #expect(shared.grouping.commits == 2 && shared.grouping.transactions <= 2)
        // Once the store writes again, so does the next commit.
        store.recover()
        try shared.commit([Self.commit("c")])
        #expect(store.transactions == [["c"]])
    }
}

/// A test that could not set up what it checks.
struct GroupingFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
