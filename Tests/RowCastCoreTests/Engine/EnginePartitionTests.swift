@testable import RowCastEngine
import RowCastJSON
@testable import RowCastStore
import RowCastWire
import Testing

/// An engine that serves some partitions only (`Engine.servedPartitions`): it applies
/// requests for their feeds, refuses those for other feeds without applying anything, answers
/// requests that name no feed, and loads only its partitions' feeds from the store.
@Suite("Engine partitions")
struct EnginePartitionTests {
    /// `cars` is in partition 214, `items` in 143 (`PartitionTests`).
    let cars = Partition(feed: "cars")

    @Test("requests for feeds of other partitions are refused and apply nothing; others are served")
    func refusesOtherPartitions() throws {
        let harness = EngineHarness()
        harness.engine.servedPartitions = [cars]

        let served = harness.control(upsert("cars", item("1"), req: 1))
        #expect(served.replies[0]["ok"] == true)

        let refused = harness.control(upsert("items", item("1"), req: 2))
        #expect(refused.replies[0]["ok"] == false)
        let error = try #require(refused.replies[0]["error"])
        #expect(error["code"] == "partition_unavailable")
        let message = try #require(error["message"]?.stringValue)
        #expect(message.contains("partition 143"), "\(message)")
        #expect(error["feed"] == "items")
        #expect(harness.engine.feeds["items"] == nil)
        #expect(refused.deltas.isEmpty)

        #expect(harness.control(["op": "status", "req": 3]).replies[0]["ok"] == true)
    }

    @Test("every partition is served when none is named")
    func servesEveryPartitionByDefault() {
        let harness = EngineHarness()
        #expect(harness.engine.servedPartitions == nil)
        #expect(harness.control(upsert("items", item("1"), req: 1)).replies[0]["ok"] == true)
        #expect(harness.control(upsert("cars", item("1"), req: 2)).replies[0]["ok"] == true)
    }

    @Test("a durable engine loads only the feeds of its partitions")
    func loadsOnlyServedPartitions() throws {
        let directory = try ScratchDirectory()
        do {
            let durable = DurableEngine(
                engine: EngineHarness().engine,
                store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
            _ = try durable.start()
            _ = durable.submit([
                IncomingMessage(origin: .ingest, body: upsert("cars", item("1")).serialized()),
                IncomingMessage(origin: .ingest, body: upsert("items", item("1")).serialized()),
            ])
            _ = try durable.flush()
            #expect(durable.close() == nil)
        }
        let harness = EngineHarness()
        harness.engine.servedPartitions = [cars]
        let durable = DurableEngine(
            engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try durable.start()
        #expect(harness.engine.feeds.keys.sorted() == ["cars"])
        _ = durable.close()
    }

    @Test(
        "a cluster node takes a partition over with its feeds and answers, then gives it up, leaving the store as it was"
    )
    func adoptAndRelease() throws {
        let directory = try ScratchDirectory()
        let retried: JSONValue = [
            "op": "upsert", "feed": "cars", "item": item("2"), "client": "producer", "req": 9,
        ]
        var first: JSONValue = .null
        var position: (seq: Int, epoch: String?) = (0, nil)
        do {
            let harness = EngineHarness()
            let durable = DurableEngine(
                engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
            _ = try durable.start()
            _ = durable.submit([
                IncomingMessage(origin: .ingest, body: upsert("cars", item("1")).serialized()),
                IncomingMessage(origin: .ingest, body: upsert("items", item("1")).serialized()),
                IncomingMessage(origin: .control(replyTo: 0), body: retried.serialized()),
            ])
            let output = try durable.flush()
            first = try JSONParser.parse(output[0].replies[0].body)
            position = (Int(harness.engine.feeds["cars"]!.seq), harness.engine.feeds["cars"]!.epoch)
            #expect(durable.close() == nil)
        }
        let harness = EngineHarness()
        harness.engine.servedPartitions = []
        let store = try SQLiteFeedStore(directory: directory.path, synchronous: .normal)
        let durable = DurableEngine(engine: harness.engine, store: store)
        _ = try durable.start()
        #expect(harness.engine.feeds.isEmpty)

        _ = try durable.adopt([cars])
        #expect(harness.engine.feeds.keys.sorted() == ["cars"])
        #expect(harness.engine.servedPartitions == [cars])
        #expect(Int(harness.engine.feeds["cars"]!.seq) == position.seq)
        #expect(harness.engine.feeds["cars"]!.epoch == position.epoch)
        // The answer the first engine remembered answers the retry: nothing is applied again.
        _ = durable.submit([IncomingMessage(origin: .control(replyTo: 0), body: retried.serialized())])
        let again = try JSONParser.parse(try durable.flush()[0].replies[0].body)
        #expect(again == first)
        #expect(Int(harness.engine.feeds["cars"]!.seq) == position.seq)

        durable.release([cars])
        #expect(harness.engine.feeds.isEmpty)
        #expect(harness.engine.servedPartitions == [])
        #expect(harness.engine.storedBytes == 0)
        let refused = harness.control(upsert("cars", item("3"), req: 4))
        #expect(refused.replies[0]["error"]?["code"] == "partition_unavailable")
        // The store still has both feeds: another node takes them from there.
        #expect(try store.feeds(named: ["cars", "items"]).map(\.name).sorted() == ["cars", "items"])
        _ = durable.close()
    }
}
