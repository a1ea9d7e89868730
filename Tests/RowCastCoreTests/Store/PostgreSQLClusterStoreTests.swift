import Foundation
import RowCastEngine
@testable import RowCastPostgres
import RowCastStore
import RowCastTesting
import RowCastWire
import Testing

/// What a cluster node's PostgreSQL store adds: its locks, loading partitions at run time, and
/// the schema's v2 migration.
@Suite(.enabled(if: PostgreSQLTestServer.testsEnabled))
struct PostgreSQLClusterStoreTests {
    func openNode(_ url: String, _ node: String) throws(StoreError) -> PostgreSQLFeedStore {
        try PostgreSQLFeedStore(url: url, node: node, lease: ClusterTest.lease, logger: ClusterTest.logger)
    }

    /// Why opening the store at `url` (as `node`, or as a single rowcastd when nil) is
    /// refused; nil when it opened (it is closed again at once).
    func refusal(_ url: String, node: String?) -> StoreError? {
        do {
            let store: PostgreSQLFeedStore
            if let node { store = try openNode(url, node) } else { store = try PostgreSQLFeedStore(url: url) }
            store.close()
            return nil
        } catch {
            return error
        }
    }

    @Test("nodes share the database; a node name runs once; a single rowcastd and nodes refuse each other")
    func locks() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let a = try openNode(url, "a")
        let b = try openNode(url, "b")
        let twice = refusal(url, node: "a")
        #expect(twice?.kind == .locked && twice?.exitStatus == 75, "\(String(describing: twice))")
        #expect(twice?.message.contains("node a") == true, "\(String(describing: twice))")
        let single = refusal(url, node: nil)
        #expect(single?.kind == .locked && single?.message.contains("cluster") == true, "\(String(describing: single))")
        a.close()
        b.close()

        let alone = try PostgreSQLFeedStore(url: url)
        let node = refusal(url, node: "c")
        #expect(
            node?.kind == .locked && node?.message.contains("node c cannot join") == true, "\(String(describing: node))"
        )
        let second = refusal(url, node: nil)
        #expect(second?.kind == .locked && second?.message.contains("another rowcastd") == true)
        alone.close()
        try openNode(url, "a").close()
    }

    @Test("loading partitions reads their feeds, events and quarantine, and the whole ledger and renderers")
    func loadPartitions() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let store = try openNode(url, "a")
        defer { store.close() }
        let names = (0..<30).map { "feed-\($0)" }
        var all = StoreCommit()
        for name in names {
            all.feeds += ClusterTest.commit(name, seq: 1).feeds
            all.events.append(ActionEvent(feed: name, seq: 1, body: Array("{\"feed\":\"\(name)\"}".utf8)))
            all.quarantine.entered.append(
                QuarantinedItem(
                    feed: name, id: "q", type: "product", code: .pluginCrashed, reason: "r", plugin: "p", file: "f",
                    at: 1))
        }
        all.ledger.recorded = [LedgerEntry(key: LedgerKey(client: "c", req: "1"), order: 1, reply: [0x7B, 0x7D])]
        all.renderers = [RendererRecord(kind: .item, type: "product", identity: "product@1")]
        try store.commit(all)
        let wanted: Set<Partition> = [Partition(feed: "feed-3"), Partition(feed: "feed-17")]
        let expected = names.filter { wanted.contains(Partition(feed: $0)) }.sorted()

        let state = try store.load(partitions: wanted)
        #expect(state.feeds.map(\.name) == expected)
        #expect(state.events.map(\.feed) == expected)
        #expect(state.quarantine.map(\.feed).sorted() == expected)
        #expect(state.ledger.count == 1 && state.renderers.count == 1)
        // The protocol's default (what the SQLite store uses) agrees.
        let filtered = try DefaultLoad(store).load(partitions: wanted)
        #expect(filtered.feeds.map(\.name) == expected && filtered.events == state.events)
        #expect(filtered.quarantine == state.quarantine)
        let none = try store.load(partitions: [])
        #expect(none.feeds.isEmpty && none.events.isEmpty && none.quarantine.isEmpty && none.ledger.count == 1)
    }

    @Test("loading partitions reads afresh what another node changed, and forget drops what was kept")
    func refreshAndForget() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let a = try openNode(url, "a")
        let b = try openNode(url, "b")
        defer {
            a.close()
            b.close()
        }
        let p = Partition(feed: "f")
        try a.commit(ClusterTest.commit("f", seq: 1, nextArrival: 2, owner: "x"))
        _ = try b.load(partitions: [p])
        // b writes f with another first-arrival counter and owner; a takes f back.
        try b.commit(ClusterTest.commit("f", seq: 2, nextArrival: 9, owner: "y"))
        _ = try a.load(partitions: [p])
        try a.commit(ClusterTest.counters("f", seq: 3))
        // The checksum of a's counters-only update covered b's values: f reads back whole.
        let read = try #require(try b.feeds(named: ["f"]).first)
        #expect(read.seq == 3 && read.nextArrival == 9 && read.owner == "y")

        // b gives f up and forgets it; a changes it; b's counters-only update leaves the
        // checksum out rather than computing it from what it no longer knows.
        b.forget(partitions: [p])
        try a.commit(ClusterTest.commit("f", seq: 4, nextArrival: 12, owner: "z"))
        try b.commit(ClusterTest.counters("f", seq: 5))
        let again = try #require(try a.feeds(named: ["f"]).first)
        #expect(again.seq == 5 && again.nextArrival == 12 && again.owner == "z")
        #expect(try ClusterTest.value("SELECT crc IS NULL FROM rowcast.feeds WHERE name = 'f'", url: url) == "t")
    }

    @Test("a version 1 store migrates to version 2: nodes, one lease row per partition, partition columns")
    func migrationFromVersion1() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let setup = try ClusterTest.connection(url)
        defer { setup.close() }
        try setup.execute(
            "CREATE SCHEMA rowcast; CREATE TABLE rowcast.meta (key text PRIMARY KEY, value text NOT NULL);")
        try setup.execute(PostgreSQLFeedStore.migrations[0])
        try setup.execute("INSERT INTO rowcast.meta VALUES ('schema', '1')")
        let names = ["f", "", "é€😀", "feed-17", String(repeating: "x", count: 300)]
        var v1 = StoreCommit()
        for name in names {
            v1.events.append(ActionEvent(feed: name, seq: 1, body: [0x7B, 0x7D]))
            v1.quarantine.entered.append(
                QuarantinedItem(
                    feed: name, id: "q", type: "product", code: .pluginCrashed, reason: "r", plugin: "p", file: "f",
                    at: 1))
        }
        // What a version 1 store wrote: the rows without their partition.
        for event in v1.events {
            let checksum = RecordChecksum.event(feed: event.feed, seq: event.seq, body: event.body).stored
            try setup.query(
                PostgresStatement(
                    "INSERT INTO rowcast.events(feed, seq, body, crc) VALUES ($1, $2, $3, $4)",
                    [.text(event.feed), .count(event.seq), .bytes(event.body), .int(checksum)]))
        }
        for entry in v1.quarantine.entered {
            try setup.query(
                PostgresStatement(
                    "INSERT INTO rowcast.quarantine(feed, id, type, code, reason, plugin, file, at, crc) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    [
                        .text(entry.feed), .text(entry.id), .text(entry.type), .text(entry.code.rawValue),
                        .text(entry.reason), .text(entry.plugin), .text(entry.file), .int(entry.at),
                        .int(
                            RecordChecksum.quarantined(
                                feed: entry.feed, id: entry.id, type: entry.type, code: entry.code.rawValue,
                                reason: entry.reason, plugin: entry.plugin, file: entry.file, at: entry.at
                            ).stored),
                    ]))
        }

        let store = try PostgreSQLFeedStore(url: url)
        defer { store.close() }
        #expect(try ClusterTest.value("SELECT value FROM rowcast.meta WHERE key = 'schema'", url: url) == "2")
        #expect(try ClusterTest.value("SELECT count(*) FROM rowcast.nodes", url: url) == "0")
        #expect(
            try ClusterTest.value(
                "SELECT count(*) FROM rowcast.partitions WHERE owner IS NULL AND token = 0 AND expires_at IS NULL",
                url: url) == String(Partition.count))
        for name in names {
            #expect(
                try ClusterTest.value("SELECT rowcast.partition_of($1)", [.text(name)], url: url)
                    == String(Partition(feed: name).index), "\(name)")
            let partition = Partition(feed: name)
            let state = try store.load(partitions: [partition])
            #expect(state.events.map(\.feed).contains(name) && state.quarantine.map(\.feed).contains(name))
            #expect(state.events.allSatisfy { Partition(feed: $0.feed) == partition })
        }
        #expect(try store.load().events.count == names.count)
    }
}

/// A store whose `load(partitions:)` is the protocol's default (filtering `load()`).
private final class DefaultLoad: FeedStore {
    let base: PostgreSQLFeedStore
    init(_ base: PostgreSQLFeedStore) { self.base = base }
    func load() throws(StoreError) -> StoredState { try base.load() }
    func commit(_ commits: [StoreCommit]) throws(StoreError) { try base.commit(commits) }
    func feeds(named names: [String]) throws(StoreError) -> [RestoredFeed] { try base.feeds(named: names) }
    func feeds(inPartitions partitions: Set<Partition>) throws(StoreError) -> [RestoredFeed] {
        try base.feeds(inPartitions: partitions)
    }
    func ledgerEntries() throws(StoreError) -> [LedgerEntry] { try base.ledgerEntries() }
    func quarantinedItems() throws(StoreError) -> [QuarantinedItem] { try base.quarantinedItems() }
    func close() {}
}
