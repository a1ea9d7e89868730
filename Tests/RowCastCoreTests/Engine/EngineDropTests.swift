import Foundation
import GRDB
@testable import RowCastEngine
import RowCastJSON
import RowCastPluginHosting
import RowCastStore
import Testing

/// `drop`: a feed goes with its items, sections and history, its subscribers get a delta that
/// empties it, and its place under `limits.max_feeds` is free.
struct EngineDropTests {
    @Test("a dropped feed empties for its subscribers, is gone, and frees its place under max_feeds")
    func dropFreesPlace() {
        let harness = EngineHarness()
        harness.engine.limits = EngineLimits(feeds: 1)
        _ = harness.control([upsert("a", item("1", section: "s")), upsert("a", item("2", section: "s"))])
        let refused = harness.control(upsert("b", item("1"))).replies[0]
        #expect(refused["error"]?["code"] == "limit_exceeded")

        let dropped = harness.control(["op": "drop", "feed": "a", "client": "ops", "req": 1])
        let reply = dropped.replies[0]
        #expect(reply["ok"] == true, "\(reply)")
        #expect(reply["dropped"]?["items"] == 2)
        #expect(reply["dropped"]?["sections"] == 1)
        #expect(reply["dropped"]?["seq"] == 2)
        #expect(reply["epoch"] == .null)
        // The last delta: both rows and the section deleted, at the next seq.
        #expect(dropped.deltas.count == 1)
        #expect(dropped.deltas.first?["seq"] == 2)
        #expect(dropped.deltas.first?["sections"]?["deleted"]?.arrayValue?.count == 1)
        #expect(harness.engine.feeds["a"] == nil)
        #expect(harness.engine.historyBytes == 0)

        #expect(harness.control(upsert("b", item("1"))).replies[0]["ok"] == true)
        let again = harness.control(["op": "drop", "feed": "a"]).replies[0]
        #expect(again["error"]?["code"] == "not_found")
        // A retry of the same request gets its first answer.
        let retry = harness.control(["op": "drop", "feed": "a", "client": "ops", "req": 1]).replies[0]
        #expect(retry["dropped"]?["items"] == 2)
    }

    @Test("the batch's positions include where a dropped feed's last delta left it")
    func dropPosition() {
        let harness = EngineHarness()
        _ = harness.control([upsert("a", item("1")), upsert("a", item("2"))])
        let output = harness.engine.process([
            IncomingMessage(
                origin: .control(replyTo: 1), body: JSONValue.object(["op": "drop", "feed": "a"]).serialized())
        ])
        #expect(output.positions.map(\.feed) == ["a"])
        #expect(output.positions.first?.seq == 2)
    }

    @Test("drop is refused on ingest: it must be answered")
    func dropNeedsControl() {
        let harness = EngineHarness()
        _ = harness.control(upsert("a", item("1")))
        let result = harness.ingest([JSONValue.object(["op": "drop", "feed": "a"]).serialized()])
        #expect(result.errors.first?["code"] == "unknown_op")
        #expect(harness.engine.feeds["a"] != nil)
    }

    @Test(
        "a dropped feed is deleted from the store with its delta log; one dropped and created again in a batch keeps only the new one"
    )
    func dropIsDurable() throws {
        let directory = try ScratchDirectory()
        var harness = EngineHarness()
        var durable = DurableEngine(
            engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try durable.start()
        func send(_ requests: [JSONValue]) throws -> [JSONValue] {
            let output = try durable.process(
                requests.enumerated().map {
                    IncomingMessage(origin: .control(replyTo: $0.offset), body: $0.element.serialized())
                })
            return try output.replies.sorted { $0.token < $1.token }.map { try JSONParser.parse($0.body) }
        }
        _ = try send([upsert("a", item("1")), upsert("a", item("2")), upsert("b", item("1"))])
        let replies = try send([
            ["op": "drop", "feed": "a"], upsert("b", item("2")), ["op": "drop", "feed": "b"], upsert("b", item("3")),
        ])
        #expect(replies.allSatisfy { $0["ok"] == true }, "\(replies)")
        // The drop of b says b is gone, though the batch created b again.
        #expect(replies[2]["seq"] == 0)
        #expect(replies[2]["epoch"] == .null)
        let oldEpoch = replies[2]["dropped"]?["epoch"]
        #expect(harness.engine.feeds["b"]?.epoch != oldEpoch?.stringValue)
        durable.close()

        harness = EngineHarness()
        durable = DurableEngine(
            engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try durable.start()
        #expect(harness.engine.feeds["a"] == nil)
        #expect(harness.engine.feeds["b"]?.allItems.map(\.input.id) == ["3"])
        durable.close()
        let queue = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName))
        let rows = try queue.read { db in
            (
                try String.fetchAll(db, sql: "SELECT DISTINCT feed FROM items"),
                try String.fetchAll(db, sql: "SELECT DISTINCT feed FROM deltas")
            )
        }
        #expect(rows.0 == ["b"])
        #expect(!rows.1.contains("a"))
        try queue.close()
    }
}
