import Foundation
import GRDB
@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastJSON
import Testing

/// Databases written by older rowcastd builds, opened by this one.
struct SchemaMigrationTests {
    /// A database at schema v1 holding remembered answers under these `req` keys of client c1.
    func makeV1Database(_ directory: ScratchDirectory, reqs: [String]) throws {
        let queue = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName))
        try SQLiteFeedStore.migrator.migrate(queue, upTo: "v1")
        try queue.write { db in
            for (order, req) in reqs.enumerated() {
                let reply = #"{"ok":true,"op":"delete","feed":"f","seq":1,"req":\#(req),"client":"c1"}"#
                try db.execute(
                    sql: "INSERT INTO requests(client, req, ord, reply) VALUES (?, ?, ?, ?)",
                    arguments: ["c1", req, order + 1, Data(reply.utf8)])
            }
        }
        try queue.close()
    }

    @Test("a v1 database is migrated to v2: exact keys stay, keys v1 re-encoded lossily are forgotten")
    func v1Ledger() throws {
        let directory = try ScratchDirectory()
        // What v1 wrote for req 7, "abc", 123456789012345678 (a Double's printing) and 2.5.
        try makeV1Database(directory, reqs: ["7", #""abc""#, "1.2345678901234568e+17", "2.5"])
        let store = try SQLiteFeedStore(directory: directory.path, synchronous: .normal)
        #expect(Set(try store.ledgerEntries().map(\.key.req)) == ["7", #""abc""#])
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product"], headerTypes: []))
        let durable = DurableEngine(engine: harness.engine, store: store)
        _ = try durable.start()
        // A retry of a kept request gets its stored answer, not a new application.
        let retry = try durable.process([
            IncomingMessage(
                origin: .control(replyTo: 1),
                body: Array(#"{"op":"delete","feed":"f","id":"x","client":"c1","req":7}"#.utf8))
        ])
        #expect(
            retry.replies.map { String(decoding: $0.body, as: UTF8.self) } == [
                #"{"ok":true,"op":"delete","feed":"f","seq":1,"req":7,"client":"c1"}"#
            ])
        durable.close()
        let queue = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName))
        #expect(
            try queue.read { db in
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
            } == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"])
        try queue.close()
    }
}
