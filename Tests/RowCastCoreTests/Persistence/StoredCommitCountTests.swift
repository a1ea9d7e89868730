import Foundation
import GRDB
@testable import RowCastEngine
@testable import RowCastStore
import Testing

/// The commit count that lost state is judged by (`StoredCommitCount`): carried by the feed
/// rows a commit writes, by `meta` when it writes none or drops a feed; and the v8 migration.
struct StoredCommitCountTests {
    func open(_ directory: ScratchDirectory) throws -> SQLiteFeedStore {
        try SQLiteFeedStore(directory: directory.path, synchronous: .normal)
    }

    /// A commit of feed `feed` at `seq`, with its delta logged.
    func feedCommit(_ feed: String, seq: UInt64) -> StoreCommit {
        var commit = StoreCommit()
        commit.feeds = [
            FeedChanges(
                feed: feed, seq: seq, epoch: "e", nextArrival: seq + 1, replacedAll: false,
                items: [
                    (
                        id: "i\(seq)",
                        item: PersistedItem(
                            id: "i\(seq)", type: "product", section: "s", sort: nil, arrival: seq,
                            json: Array("{}".utf8))
                    )
                ], sections: [])
        ]
        commit.history = [StoredDelta(feed: feed, epoch: "e", seq: seq, body: Array("delta \(seq)".utf8))]
        commit.historyRetention = 100
        return commit
    }

    /// A commit that drops `feed`.
    func dropping(_ feed: String) -> StoreCommit {
        var commit = StoreCommit()
        commit.droppedFeeds = [feed]
        return commit
    }

    /// `meta`'s `commits` (nil when never written) and the feeds' highest `last_commit`.
    func recorded(_ directory: ScratchDirectory) throws -> (meta: String?, feeds: Int64?) {
        let queue = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName))
        defer { try? queue.close() }
        return try queue.read { db in
            (
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'commits'"),
                try Int64.fetchOne(db, sql: "SELECT max(last_commit) FROM feeds")
            )
        }
    }

    @Test("commits that write feed rows leave meta alone: the rows carry the count, and a reopen continues")
    func countInFeedRows() throws {
        let directory = try ScratchDirectory()
        let store = try open(directory)
        for seq: UInt64 in 1...5 { try store.commit([feedCommit("f", seq: seq)]) }
        let (meta, feeds) = try recorded(directory)
        #expect(meta == nil)
        #expect(feeds == 5)
        store.close()
        // A clean stop writes the count into meta too, for an older rowcastd that reads only
        // meta (it then refuses the newer schema, not lost state).
        #expect(try recorded(directory).meta == "5")
        let reopened = try open(directory)
        #expect(reopened.continuity == .continued)
        try reopened.commit([feedCommit("f", seq: 6)])
        reopened.close()
        #expect(try recorded(directory).feeds == 6)
        #expect(try open(directory).continuity == .continued)
    }

    @Test("a commit that writes no feed row, or drops the feed with the highest number, writes the count into meta")
    func countInMeta() throws {
        let directory = try ScratchDirectory()
        let store = try open(directory)
        try store.commit([feedCommit("f", seq: 1)])
        try store.commit([feedCommit("g", seq: 1)])
        try store.commit([dropping("g")])
        #expect(try recorded(directory).meta == "3")
        try store.commit([StoreCommit()])
        let (meta, feeds) = try recorded(directory)
        #expect(meta == "4")
        #expect(feeds == 1)
        store.close()
        // The marker says 4: counted from the feed rows alone (1), the database would look
        // like an older copy.
        let reopened = try open(directory)
        #expect(reopened.continuity == .continued)
        reopened.close()
    }

    @Test(
        "one commit of several batches: a drop in one and a feed row in another write meta; a feed dropped and made again keeps the count"
    )
    func severalBatches() throws {
        let directory = try ScratchDirectory()
        let store = try open(directory)
        try store.commit([feedCommit("f", seq: 1)])
        try store.commit([feedCommit("g", seq: 1)])
        try store.commit([feedCommit("f", seq: 2), dropping("g")])
        #expect(try recorded(directory).meta == "3")
        #expect(try recorded(directory).feeds == 3)
        try store.commit([dropping("f"), feedCommit("f", seq: 1)])
        #expect(try recorded(directory).meta == "4")
        #expect(try recorded(directory).feeds == 4)
        try store.commit([feedCommit("f", seq: 2)])
        #expect(try recorded(directory).feeds == 5)
        store.close()
        #expect(try open(directory).continuity == .continued)
    }

    @Test("an older copy whose newer commits went only into feed rows is refused as lost state")
    func olderCopyOfFeedRows() throws {
        let directory = try ScratchDirectory()
        let database = directory.file(SQLiteFeedStore.databaseFileName)
        let store = try open(directory)
        try store.commit([feedCommit("f", seq: 1)])
        store.close()
        try FileManager.default.copyItem(atPath: database, toPath: directory.file("backup.db"))
        let again = try open(directory)
        for seq: UInt64 in 2...3 { try again.commit([feedCommit("f", seq: seq)]) }
        again.close()
        try FileManager.default.removeItem(atPath: database)
        try FileManager.default.copyItem(atPath: directory.file("backup.db"), toPath: database)
        let refusal = #expect(throws: StoreError.self) { try open(directory) }
        #expect(refusal?.kind == .lost)
        #expect(refusal?.message.contains("older copy") == true, "\(refusal?.message ?? "")")
    }

    @Test("a v7 database is migrated to v8: its count in meta continues, its delta log is kept")
    func migrationFromV7() throws {
        let directory = try ScratchDirectory()
        let store = try open(directory)
        for seq: UInt64 in 1...3 { try store.commit([feedCommit("f", seq: seq)]) }
        store.close()
        // Back to v7's shape: no `last_commit`, the count in meta as v7 wrote it.
        let queue = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName))
        try queue.write { db in
            try db.execute(
                sql: """
                    ALTER TABLE feeds DROP COLUMN last_commit;
                    INSERT OR REPLACE INTO meta(key, value) VALUES ('commits', '3');
                    DELETE FROM grdb_migrations WHERE identifier = 'v8';
                    """)
        }
        try queue.close()

        let migrated = try open(directory)
        #expect(migrated.continuity == .continued)
        let feed = try #require(try migrated.feeds(named: ["f"]).first)
        #expect(feed.history.map { $0.seq } == [1, 2, 3])
        #expect(feed.history.map { String(decoding: $0.body, as: UTF8.self) } == ["delta 1", "delta 2", "delta 3"])
        try migrated.commit([feedCommit("f", seq: 4)])
        migrated.close()
        #expect(try recorded(directory).feeds == 4)
        #expect(try open(directory).continuity == .continued)
    }
}
