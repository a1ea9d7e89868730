import Foundation
import GRDB
@testable import RowCastEngine
import RowCastJSON
import RowCastPluginHosting
@testable import RowCastStore
import Testing

/// The store's delta log: `since` is answered from history after a restart, within the
/// history limits, and never across a new epoch or a damaged delta.
struct DeltaLogTests {
    func start(_ directory: ScratchDirectory, historyDeltas: Int = 1000) throws -> (EngineHarness, DurableEngine) {
        let harness = EngineHarness()
        harness.engine.limits.historyDeltas = historyDeltas
        var count = 0
        let durable = DurableEngine(
            engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal),
            makeEpoch: {
                count += 1
                return "renewed-\(count)"
            })
        _ = try durable.start()
        return (harness, durable)
    }

    /// Upserts items `ids` one batch each; returns the deltas published, in order.
    func publish(_ durable: DurableEngine, _ ids: [String]) throws -> [JSONValue] {
        var deltas: [JSONValue] = []
        for id in ids {
            let output = try durable.process([
                IncomingMessage(origin: .control(replyTo: 1), body: upsert("f", item(id)).serialized())
            ])
            deltas += try output.publications.filter { $0.topic.starts(with: Array("rows.".utf8)) }.map {
                try JSONParser.parse($0.body)
            }
        }
        return deltas
    }

    func since(_ durable: DurableEngine, epoch: JSONValue, seq: Int) throws -> JSONValue {
        let output = try durable.process([
            IncomingMessage(
                origin: .control(replyTo: 1),
                body: JSONValue.object(["op": "since", "feed": "f", "epoch": epoch, "seq": .number(Double(seq))])
                    .serialized())
        ])
        return try JSONParser.parse(output.replies[0].body)
    }

    @Test("after a restart, since is answered from the logged deltas, byte for byte as published")
    func resumeAfterRestart() throws {
        let directory = try ScratchDirectory()
        var (harness, durable) = try start(directory)
        let published = try publish(durable, ["1", "2", "3", "4", "5"])
        let epoch = published[0]["epoch"]!
        durable.close()

        (harness, durable) = try start(directory)
        #expect(harness.engine.feeds["f"]!.epoch == epoch.stringValue)
        let reply = try since(durable, epoch: epoch, seq: 2)
        #expect(reply["covered"] == true, "\(reply)")
        #expect(reply["deltas"]?.arrayValue == Array(published[2...]))
        // A delta published now continues the log.
        let next = try publish(durable, ["6"])
        #expect(try since(durable, epoch: epoch, seq: 4)["deltas"]?.arrayValue == Array(published[4...]) + next)
        durable.close()
    }

    @Test(
        "the log keeps limits.history_deltas deltas per feed (trimmed every 32nd delta); since before them takes a snapshot"
    )
    func retention() throws {
        let directory = try ScratchDirectory()
        var (harness, durable) = try start(directory, historyDeltas: 3)
        let published = try publish(durable, (1...40).map(String.init))
        let epoch = published[0]["epoch"]!
        durable.close()
        let logged = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName)).read { db in
            try Int64.fetchAll(db, sql: "SELECT seq FROM deltas ORDER BY seq")
        }
        // Trimmed to the last 3 at seq 32, then 8 more logged.
        #expect(logged == Array(30...40))

        (harness, durable) = try start(directory, historyDeltas: 3)
        #expect(try since(durable, epoch: epoch, seq: 37)["covered"] == true)
        #expect(try since(durable, epoch: epoch, seq: 36)["covered"] == false)
        _ = harness
        durable.close()
    }

    @Test("a damaged delta is left out with every older one; a new epoch leaves the whole log out")
    func damagedAndNewEpoch() throws {
        let directory = try ScratchDirectory()
        var (harness, durable) = try start(directory)
        let published = try publish(durable, ["1", "2", "3", "4", "5"])
        let epoch = published[0]["epoch"]!
        durable.close()
        let queue = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName))
        try queue.write { db in try db.execute(sql: "UPDATE deltas SET body = CAST('{}' AS BLOB) WHERE seq = 3") }
        try queue.close()

        (harness, durable) = try start(directory)
        #expect(try since(durable, epoch: epoch, seq: 3)["covered"] == true)
        #expect(try since(durable, epoch: epoch, seq: 2)["covered"] == false)
        durable.close()

        // The position file gone: continuity cannot be shown, so every feed starts a new epoch.
        try FileManager.default.removeItem(atPath: directory.file(SQLiteFeedStore.markerFileName))
        (harness, durable) = try start(directory)
        let renewed = harness.engine.feeds["f"]!.epoch
        #expect(renewed == "renewed-1")
        #expect(try since(durable, epoch: .string(renewed), seq: 4)["covered"] == false)
        #expect(try since(durable, epoch: epoch, seq: 4)["covered"] == false)
        durable.close()
    }
}
