import Foundation
@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A store that only counts its commits, failing the ones whose number (from 1) is in
/// `failing`; each commit spins for up to `spin` iterations so that the writer thread finishes
/// at varied moments around the owner's `wait`.
final class CountingStore: FeedStore, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    let failing: Set<Int>
    let spin: Int

    init(failing: Set<Int> = [], spin: Int = 0) {
        self.failing = failing
        self.spin = spin
    }

    /// How many commits were written (failed ones included).
    var commits: Int { lock.withLock { count } }

    func load() throws(StoreError) -> StoredState {
        StoredState(feeds: [], ledger: [], renderers: [], continuity: .fresh, events: [])
    }

    func commit(_ commits: [StoreCommit]) throws(StoreError) {
        let number = lock.withLock {
            count += 1; return count
        }
        var sink = 0
        for index in 0..<(spin == 0 ? 0 : number * 7919 % spin) { sink &+= index }
        _ = sink
        if failing.contains(number) { throw StoreError(.full, path: "test", message: "commit \(number) fails (test).") }
    }

    func feeds(named names: [String]) throws(StoreError) -> [RestoredFeed] { [] }
    func feeds(inPartitions partitions: Set<Partition>) throws(StoreError) -> [RestoredFeed] { [] }
    func ledgerEntries() throws(StoreError) -> [LedgerEntry] { [] }
    func quarantinedItems() throws(StoreError) -> [QuarantinedItem] { [] }
    func close() {}
}

/// The commit thread's hand-off: the owner starts a job and waits for it (sleeping on the
/// finished descriptor), or takes it without waiting once finished. The time limits only catch
/// a hang: under ThreadSanitizer on a 2-core machine busy with other tests, the 3,000 hand-offs
/// took 250 s without a failed expectation.
struct CommitWriterTests {
    static func readable(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }

    @Test(
        "thousands of jobs started and waited for back to back: every outcome comes back, none is lost or taken twice",
        .timeLimit(.minutes(5)))
    func startAndWaitBackToBack() {
        let store = CountingStore(failing: [17, 1000, 2500], spin: 20_000)
        let writer = CommitWriter(store: store)
        var failures: [Int] = []
        for number in 1...3000 {
            writer.start([StoreCommit()])
            #expect(writer.isBusy)
            if case .failure = writer.wait() { failures.append(number) }
            #expect(!writer.isBusy)
            #expect(
                !Self.readable(writer.finishedDescriptor),
                "commit \(number): the descriptor is cleared with its outcome")
        }
        #expect(failures == [17, 1000, 2500])
        #expect(store.commits == 3000)
        writer.stop()
    }

    @Test(
        "jobs taken without waiting once the descriptor is readable, and a failure left for wait",
        .timeLimit(.minutes(5)))
    func takeOnceFinished() {
        let store = CountingStore(failing: [50], spin: 5_000)
        let writer = CommitWriter(store: store)
        for number in 1...200 {
            writer.start([StoreCommit()])
            var entry = pollfd(fd: writer.finishedDescriptor, events: Int16(POLLIN), revents: 0)
            #expect(poll(&entry, 1, 10_000) == 1, "commit \(number) finishes")
            if number == 50 {
                #expect(!writer.takeIfSucceeded(), "a failure is not taken")
                #expect(!Self.readable(writer.finishedDescriptor))
                guard case .failure = writer.wait() else {
                    Issue.record("commit 50 should have failed")
                    continue
                }
            } else {
                #expect(writer.takeIfSucceeded())
            }
            #expect(!writer.isBusy)
        }
        #expect(store.commits == 200)
        writer.stop()
    }
}
