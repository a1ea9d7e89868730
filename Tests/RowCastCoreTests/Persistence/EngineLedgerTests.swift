import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import Testing

/// A repeated acked mutation (same `client` and `req`) gets its first answer and is not
/// applied again.
struct EngineLedgerTests {
    func tagged(_ request: JSONValue, client: String = "c1", req: Int) -> JSONValue {
        var object = request.objectValue!
        object["client"] = .string(client)
        object["req"] = .number(Double(req))
        return .object(object)
    }

    @Test("a repeated delete after the item came back is answered, not applied")
    func repeatedDelete() {
        let harness = EngineHarness()
        _ = harness.control(tagged(upsert("f", item("1")), req: 1))
        let delete = tagged(["op": "delete", "feed": "f", "id": "1"], req: 2)
        let first = harness.control(delete).replies[0]
        _ = harness.control(tagged(upsert("f", item("1", data: ["name": "back"])), req: 3))
        let again = harness.control(delete)
        #expect(again.replies[0] == first)
        #expect(again.deltas.isEmpty)
        #expect(
            harness.snapshot("f")["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.first?["content"]?["name"]
                == "back")
    }

    @Test("a request repeated in one batch is applied once and both get the same answer")
    func repeatedInBatch() {
        let harness = EngineHarness()
        let request = tagged(upsert("f", item("1")), req: 1)
        let result = harness.control([request, tagged(upsert("f", item("2")), req: 2), request])
        #expect(result.replies[0] == result.replies[2])
        #expect(result.replies[0]["seq"] == 1)
        #expect(harness.engine.counters.applied == 2)
    }

    @Test("a request repeated in one batch whose answer is not remembered (plugin_unavailable) gets that answer twice")
    func repeatedUnrememberedInBatch() {
        let renderer = FakeRenderer()
        renderer.paused = true
        let harness = EngineHarness(renderer: renderer)
        let request = tagged(upsert("f", item("1")), req: 1)
        let result = harness.control([request, request])
        #expect(result.replies[0]["error"]?["code"] == "plugin_unavailable")
        #expect(result.replies[1] == result.replies[0])
        #expect(harness.engine.ledger.count == 0)
    }

    @Test("a refused mutation is remembered; ingest and requests without client are not deduplicated")
    func refusalsAndUntagged() {
        let harness = EngineHarness()
        let missing = tagged(["op": "delete", "feed": "f", "id": "nope"], req: 1)
        #expect(harness.control(missing).replies[0]["error"]?["code"] == "not_found")
        _ = harness.control(upsert("f", item("nope")))
        #expect(harness.control(missing).replies[0]["error"]?["code"] == "not_found")
        #expect(harness.snapshot("f")["seq"] == 1)

        let untagged: JSONValue = ["op": "upsert", "feed": "g", "req": 5, "item": item("1")]
        _ = harness.control(untagged)
        _ = harness.control(["op": "delete", "feed": "g", "id": "1", "req": 6])
        _ = harness.control(untagged)
        #expect(harness.snapshot("g")["seq"] == 3)

        let pushed = tagged(upsert("h", item("1")), req: 1)
        _ = harness.ingest([pushed.serialized()])
        _ = harness.ingest([tagged(["op": "delete", "feed": "h", "id": "1"], req: 2).serialized()])
        _ = harness.ingest([pushed.serialized()])
        #expect(harness.snapshot("h")["seq"] == 3)
    }

    @Test("the same req from another client is another request")
    func otherClient() {
        let harness = EngineHarness()
        _ = harness.control(tagged(upsert("f", item("1")), client: "a", req: 1))
        _ = harness.control(tagged(["op": "delete", "feed": "f", "id": "1"], client: "b", req: 1))
        #expect(harness.snapshot("f")["seq"] == 2)
        #expect(harness.engine.ledger.count == 2)
    }
}
