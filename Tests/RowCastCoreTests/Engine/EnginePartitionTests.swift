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
        #expect(error["code"] == "internal_error")
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
}
