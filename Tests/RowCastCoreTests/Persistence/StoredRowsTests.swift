import Foundation
import GRDB
@testable import RowCastEngine
import RowCastJSON
@testable import RowCastStore
import RowCastTesting
import Testing

/// Rows are stored as rendered, with the item, and the quarantine with them: what a start
/// loads without calling a plugin, and what `--check-state` checks.
struct StoredRowsTests {
    func open(_ directory: ScratchDirectory) throws -> SQLiteFeedStore {
        try SQLiteFeedStore(directory: directory.path, synchronous: .normal)
    }

    /// Runs `sql` on the stopped store's database.
    func change(_ directory: ScratchDirectory, _ sql: String) throws {
        let queue = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName))
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    static let crashed = QuarantinedItem(
        feed: "f", id: "poison", type: "product", code: .pluginCrashed, reason: "killed by signal 11 (SIGSEGV)",
        plugin: "product", file: "/plugins/librowcast-product.so", at: 1_738_324_800_123)

    /// A commit of two items of feed `f`, one with a row and one without, and a quarantine entry.
    func writeRows(_ store: SQLiteFeedStore) throws -> [PersistedItem] {
        let written = [
            PersistedItem(
                id: "1", type: "product", section: "s", sort: nil, arrival: 1,
                json: Array(#"{"id":"1","type":"product","section":"s","data":{}}"#.utf8),
                row: RenderedRow(cell: "productCell", bytes: Array(#"{"id":"1","cell":"productCell"}"#.utf8))),
            PersistedItem(
                id: "poison", type: "product", section: "s", sort: 2, arrival: 2,
                json: Array(#"{"id":"poison","type":"product","section":"s","sort":2,"data":{}}"#.utf8), row: nil),
        ]
        var commit = StoreCommit()
        commit.feeds = [
            FeedChanges(
                feed: "f", seq: 1, epoch: "e", nextArrival: 3, replacedAll: false,
                items: written.map { (id: $0.id, item: $0) }, sections: [])
        ]
        commit.quarantine.entered = [Self.crashed]
        try store.commit([commit])
        return written
    }

    @Test("rows, rowless items and quarantine entries come back as written; releasing an entry deletes it")
    func roundTrip() throws {
        let directory = try ScratchDirectory()
        let store = try open(directory)
        let written = try writeRows(store)
        store.close()

        let reopened = try open(directory)
        let state = try reopened.load()
        #expect(state.feeds.first?.items.sorted { $0.arrival < $1.arrival } == written)
        #expect(state.quarantine == [Self.crashed])
        #expect(try reopened.quarantinedItems() == [Self.crashed])
        var release = StoreCommit()
        release.quarantine.left = [(feed: "f", id: "poison")]
        try reopened.commit([release])
        #expect(try reopened.quarantinedItems().isEmpty)
        reopened.close()
    }

    @Test("a dropped feed takes its quarantine entries with it")
    func dropDeletesQuarantine() throws {
        let directory = try ScratchDirectory()
        let store = try open(directory)
        _ = try writeRows(store)
        var drop = StoreCommit()
        drop.droppedFeeds = ["f"]
        try store.commit([drop])
        #expect(try store.quarantinedItems().isEmpty)
        store.close()
    }

    @Test("an item stored before rows were (schema v6) comes back unrendered, to be rendered at start")
    func legacyItem() throws {
        let directory = try ScratchDirectory()
        let queue = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName))
        try SQLiteFeedStore.migrator.migrate(queue, upTo: "v6")
        try queue.close()
        let store = try open(directory)
        var commit = StoreCommit()
        commit.feeds = [
            FeedChanges(
                feed: "f", seq: 1, epoch: "e", nextArrival: 2, replacedAll: false,
                items: [
                    (
                        id: "1",
                        item: PersistedItem(
                            id: "1", type: "product", section: "s", sort: nil, arrival: 1,
                            json: Array(#"{"id":"1"}"#.utf8))
                    )
                ], sections: [])
        ]
        try store.commit([commit])
        store.close()
        // What v6 left: the columns v7 added are NULL.
        try change(directory, "UPDATE items SET row_cell = NULL, row_json = NULL, row_crc = NULL")
        let reopened = try open(directory)
        let item = try #require(try reopened.load().feeds.first?.items.first)
        #expect(!item.rendered)
        #expect(item.row == nil)
        reopened.close()
    }

    @Test(
        "a changed byte of a stored row quarantines its item at start as damaged, and --check-state names it",
        arguments: [
            "UPDATE items SET row_json = CAST(replace(CAST(row_json AS TEXT), 'productCell', 'productCelk') AS BLOB) WHERE id = '1'",
            "UPDATE items SET row_cell = 'otherCell' WHERE id = '1'",
            "UPDATE items SET row_json = 7 WHERE id = '1'",
        ])
    func damagedRow(sql: String) throws {
        let directory = try ScratchDirectory()
        let store = try open(directory)
        _ = try writeRows(store)
        store.close()
        try change(directory, sql)

        let report = try StateCheck.run(directory: directory.path)
        #expect(report.problems.count == 1, "\(report.problems)")
        #expect(report.problems.first?.contains("item \"1\": its row") == true, "\(report.problems)")
        #expect(report.records.contains { $0.table == "quarantine" && $0.count == 1 })

        let reopened = try open(directory)
        let feed = try #require(try reopened.load().feeds.first)
        #expect(feed.items.map(\.id) == ["poison"])
        #expect(feed.damaged.map(\.id) == ["1"])
        reopened.close()
    }

    @Test("a damaged quarantine entry refuses the start (exit 65) and --check-state names it")
    func damagedQuarantineEntry() throws {
        let directory = try ScratchDirectory()
        let store = try open(directory)
        _ = try writeRows(store)
        store.close()
        try change(directory, "UPDATE quarantine SET reason = 'killed by signal 9'")

        let report = try StateCheck.run(directory: directory.path)
        #expect(report.problems.count == 1, "\(report.problems)")
        #expect(report.problems.first?.hasPrefix("quarantine: item \"poison\" of feed \"f\"") == true)
        let reopened = try open(directory)
        #expect {
            _ = try reopened.load()
        } throws: { error in
            (error as? StoreError)?.exitStatus == 65
        }
        reopened.close()
    }
}
