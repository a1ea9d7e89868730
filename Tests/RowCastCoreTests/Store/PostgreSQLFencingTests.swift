import Foundation
import RowCastEngine
@testable import RowCastPostgres
import RowCastTesting
import RowCastWire
import Testing

/// Fencing: a cluster node's store commits only to partitions whose lease it holds, checked in
/// the commit's own transaction (`rowcast.check_leases`).
@Suite(.enabled(if: PostgreSQLTestServer.testsEnabled))
struct PostgreSQLFencingTests {
    /// Two nodes' stores on one new database, fenced, and a lease table.
    func cluster() throws -> (url: String, a: PostgreSQLFeedStore, b: PostgreSQLFeedStore, table: PartitionLeaseTable) {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let a = try PostgreSQLFeedStore(url: url, node: "a", lease: ClusterTest.lease, logger: ClusterTest.logger)
        a.fence = LeaseTokens(node: "a")
        let b = try PostgreSQLFeedStore(url: url, node: "b", lease: ClusterTest.lease, logger: ClusterTest.logger)
        b.fence = LeaseTokens(node: "b")
        return (url, a, b, try PartitionLeaseTable(url: url, logger: ClusterTest.logger))
    }

    /// Takes `partition` for the node of `store` (waiting, bounded, for an older lease to
    /// expire) and records its token in the store's fence.
    func take(
        _ partition: Partition, for store: PostgreSQLFeedStore, table: PartitionLeaseTable, lease: Duration
    )
        throws -> Int64?
    {
        let fence = try #require(store.fence)
        var token: Int64?
        _ = try ClusterTest.waitUntil {
            token = try table.acquire([partition], node: fence.node, lease: lease)[partition]
            return token != nil
        }
        if let token { fence.set(partition, token: token) }
        return token
    }

    @Test("after another node takes a partition over, the old owner's commit is fenced and writes nothing")
    func takeover() throws {
        let (_, a, b, table) = try cluster()
        defer {
            a.close()
            b.close()
            table.close()
        }
        let p = Partition(feed: "f")
        #expect(try take(p, for: a, table: table, lease: .milliseconds(300)) == 1)
        try a.commit(ClusterTest.commit("f", seq: 1))

        // b waits for a's short lease to expire, then takes it: token 2.
        #expect(try take(p, for: b, table: table, lease: .seconds(30)) == 2)
        do {
            try a.commit(ClusterTest.commit("f", seq: 2))
            Issue.record("a stale node committed")
        } catch {
            #expect(error.kind == .fenced && error.exitStatus == 75, "\(error)")
            #expect(
                error.message
                    == "partition \(p.index) is owned by node b now (this node's lease token 1 is stale); nothing of the batch was written",
                "\(error)")
        }
        #expect(try b.feeds(named: ["f"]).map(\.seq) == [1])
        try b.commit(ClusterTest.commit("f", seq: 3))
        #expect(try b.feeds(named: ["f"]).map(\.seq) == [3])

        // A released partition: the lease row names nobody.
        try table.release([p], node: "b")
        do {
            try b.commit(ClusterTest.commit("f", seq: 4))
            Issue.record("a node committed to a partition it released")
        } catch {
            #expect(error.kind == .fenced && error.message.contains("owned by no node now"), "\(error)")
        }
    }

    @Test("a commit naming a feed of a partition without a token fails before anything is sent")
    func noToken() throws {
        let (_, a, b, table) = try cluster()
        defer {
            a.close()
            b.close()
            table.close()
        }
        let p = Partition(feed: "f")
        #expect(try take(p, for: a, table: table, lease: .seconds(30)) == 1)
        let other = try #require((0..<1000).map { "g\($0)" }.first { Partition(feed: $0) != p })
        // Every field that names a feed is covered, each alone and beside a held feed.
        var events = StoreCommit()
        events.events = [ActionEvent(feed: other, seq: 1, body: [0x7B, 0x7D])]
        var dropped = StoreCommit()
        dropped.droppedFeeds = [other]
        var history = StoreCommit()
        history.history = [StoredDelta(feed: other, epoch: "e1", seq: 1, body: [0x7B, 0x7D])]
        var left = StoreCommit()
        left.quarantine.left = [(feed: other, id: "i")]
        var entered = StoreCommit()
        entered.quarantine.entered = [
            QuarantinedItem(
                feed: other, id: "i", type: "product", code: .pluginCrashed, reason: "r", plugin: "p", file: "f", at: 1)
        ]
        var damaged = StoreCommit()
        damaged.damagedItems = [DamagedItem(feed: other, id: "i", type: "product", reason: "r", known: true)]
        for batch in [
            ClusterTest.commit(other, seq: 1), ClusterTest.counters(other, seq: 1), events, dropped, history, left,
            entered, damaged,
        ] {
            let trips = a.roundTrips
            do {
                try a.commit([ClusterTest.commit("f", seq: 1), batch])
                Issue.record("a commit to an unheld partition went through")
            } catch {
                #expect(error.kind == .fenced, "\(error)")
                #expect(error.message.contains("\(Partition(feed: other))") && error.message.contains("node a"))
            }
            #expect(a.roundTrips == trips)
        }
        #expect(try a.feeds(named: ["f", other]).isEmpty)

        // A commit that names no feed needs no lease; one of the held partition goes through.
        var ledger = StoreCommit()
        ledger.ledger.recorded = [LedgerEntry(key: LedgerKey(client: "c", req: "1"), order: 1, reply: [0x7B, 0x7D])]
        ledger.renderers = [RendererRecord(kind: .item, type: "product", identity: "product@1")]
        try b.commit(ledger)
        let trips = a.roundTrips
        try a.commit(ClusterTest.commit("f", seq: 1))
        #expect(a.roundTrips == trips + 1)
        #expect(try a.ledgerEntries().count == 1)
        a.fence?.remove([p])
        #expect(throws: StoreError.self) { try a.commit(ClusterTest.commit("f", seq: 2)) }
    }

    @Test("a takeover leaves a partition whose old owner's commit is in flight, and takes it once that commit ended")
    func racingTakeover() throws {
        let (url, a, b, table) = try cluster()
        defer { table.close() }
        let p = Partition(feed: "f")
        #expect(try take(p, for: a, table: table, lease: .milliseconds(300)) == 1)
        try a.commit(ClusterTest.commit("f", seq: 1))
        #expect(try ClusterTest.waitUntil { try table.leases()[p.index].expiresIn.map { $0 < .zero } == true })

        // A third connection holds f's row, so that a's next commit stops after its lease
        // check, in an open transaction.
        let blocker = try ClusterTest.connection(url)
        defer { blocker.close() }
        try blocker.execute("BEGIN")
        try blocker.execute("SELECT 1 FROM rowcast.feeds WHERE name = 'f' FOR UPDATE")
        let commit = Handover(a)
        commit.start { store in try store.commit(ClusterTest.commit("f", seq: 2)) }
        #expect(try ClusterTest.waitUntil { try ClusterTest.lockWaiters(url: url) == 1 })

        // b's takeover does not wait for a's transaction (its lease check holds the row FOR
        // SHARE): it answers without the partition (on a thread, so that a takeover that
        // waited would fail the test rather than hang it).
        let takeover = Handover(table)
        let taken = Box<[Partition: Int64]>([p: 0])
        takeover.start { table in taken.value = try table.acquire([p], node: "b", lease: .seconds(30)) }
        let took = takeover.wait(seconds: 10)
        try blocker.execute("COMMIT")
        #expect(Handover<Void>.succeeded(took), "the takeover waited for the commit in flight")
        #expect(taken.value == [:])
        let committed = commit.wait()
        #expect(Handover<Void>.succeeded(committed), "\(String(describing: committed))")

        #expect(try table.acquire([p], node: "b", lease: .seconds(30)) == [p: 2])
        b.fence?.set(p, token: 2)
        #expect(try b.feeds(inPartitions: [p]).map(\.seq) == [2])
        #expect(throws: StoreError.self) { try a.commit(ClusterTest.commit("f", seq: 3)) }
        a.close()
        b.close()
    }

    @Test("a node's session that idles inside a transaction past its lease is ended, and its lease rows are free")
    func pausedCommitLetsGo() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let table = try PartitionLeaseTable(url: url, logger: ClusterTest.logger)
        defer { table.close() }
        try PostgreSQLFeedStore(url: url, node: "schema", lease: ClusterTest.lease, logger: ClusterTest.logger).close()
        let p = Partition(feed: "f")
        #expect(try table.acquire([p], node: "a", lease: .milliseconds(300)) == [p: 1])

        // A session set up as node a's commit connection with a 500 ms lease, stopped in the
        // middle of a commit: its lease check ran and holds the row.
        let paused = try PostgreSQLFeedStore.openConnection(url: url, idleInTransaction: .milliseconds(500))
        defer { paused.close() }
        try paused.execute("BEGIN")
        try paused.execute("SELECT 1 FROM rowcast.partitions WHERE partition = \(p.index) FOR SHARE")
        #expect(try table.acquire([p], node: "b", lease: .seconds(30)) == [:])

        var taken: [Partition: Int64] = [:]
        let tookOver = try ClusterTest.waitUntil {
            taken = try table.acquire([p], node: "b", lease: .seconds(30))
            return !taken.isEmpty
        }
        #expect(tookOver && taken == [p: 2])
        // Woken, the paused session finds itself ended: nothing it does commits.
        #expect(throws: (any Error).self) { try paused.execute("COMMIT") }
        #expect(paused.isBroken)
    }

    @Test("a renewal waits for the node's own commit in flight over the same partitions, and both succeed")
    func renewalDuringCommit() throws {
        let (url, a, b, table) = try cluster()
        defer {
            a.close()
            b.close()
            table.close()
        }
        let feeds = (0..<200).map { "feed-\($0)" }
        let partitions = Set(feeds.map { Partition(feed: $0) })
        let held = try table.acquire(partitions, node: "a", lease: .seconds(30))
        #expect(held.count == partitions.count)
        for (partition, token) in held { a.fence?.set(partition, token: token) }
        func commit(seq: UInt64) -> StoreCommit {
            var commit = StoreCommit()
            commit.feeds = feeds.flatMap { ClusterTest.commit($0, seq: seq).feeds }
            return commit
        }
        try a.commit(commit(seq: 1))

        let blocker = try ClusterTest.connection(url)
        defer { blocker.close() }
        try blocker.execute("BEGIN")
        try blocker.execute("SELECT 1 FROM rowcast.feeds WHERE name = 'feed-199' FOR UPDATE")
        let committing = Handover(a)
        let second = commit(seq: 2)
        committing.start { store in try store.commit(second) }
        #expect(try ClusterTest.waitUntil { try ClusterTest.lockWaiters(url: url) == 1 })
        let renewing = Handover(table)
        let renewed = Box<[Partition: Int64]>([:])
        renewing.start { table in renewed.value = try table.renew(held, node: "a", lease: .seconds(30)) }
        #expect(try ClusterTest.waitUntil { try ClusterTest.lockWaiters(url: url) == 2 })
        try blocker.execute("COMMIT")

        let committed = committing.wait()
        let renewal = renewing.wait()
        #expect(Handover<Void>.succeeded(committed), "\(String(describing: committed))")
        #expect(Handover<Void>.succeeded(renewal), "\(String(describing: renewal))")
        #expect(renewed.value == held)
        #expect(try a.feeds(named: ["feed-0", "feed-199"]).map(\.seq) == [2, 2])
    }
}
