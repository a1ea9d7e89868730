import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import Testing

/// The `limits.max_*` limits: refused whole with `limit_exceeded` naming the limit, nothing
/// changed, and room again once something is deleted.
struct EngineLimitsTests {
    private func harness(_ limits: EngineLimits) -> EngineHarness {
        let harness = EngineHarness()
        harness.engine.limits = limits
        return harness
    }

    private func expectLimit(_ reply: JSONValue, _ limit: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply["ok"] == false, sourceLocation: sourceLocation)
        #expect(reply["error"]?["code"] == "limit_exceeded", "\(reply)", sourceLocation: sourceLocation)
        #expect(reply["error"]?["limit"]?.stringValue == limit, sourceLocation: sourceLocation)
        #expect(reply["error"]?["message"]?.stringValue?.contains(limit) == true, sourceLocation: sourceLocation)
    }

    @Test("a feed past limits.max_feeds is not created; existing feeds still take items")
    func feeds() {
        let harness = harness(EngineLimits(feeds: 2))
        #expect(
            harness.control([upsert("a", item("1")), upsert("b", item("1"))]).replies.allSatisfy { $0["ok"] == true })
        expectLimit(harness.control(upsert("c", item("1"))).replies[0], "limits.max_feeds")
        expectLimit(
            harness.control(["op": "section", "feed": "c", "section": ["id": "s"]]).replies[0], "limits.max_feeds")
        expectLimit(harness.control(["op": "reset", "feed": "c", "items": []]).replies[0], "limits.max_feeds")
        #expect(harness.engine.feeds["c"] == nil)
        #expect(harness.control(upsert("a", item("2"))).replies[0]["ok"] == true)
    }

    @Test("an item past limits.max_items_per_feed is refused; replacing one is not; a delete makes room")
    func items() {
        let harness = harness(EngineLimits(itemsPerFeed: 2))
        _ = harness.control([upsert("f", item("1")), upsert("f", item("2"))])
        let refused = harness.control(upsert("f", item("3")))
        expectLimit(refused.replies[0], "limits.max_items_per_feed")
        #expect(refused.replies[0]["error"]?["id"] == "3")
        #expect(refused.deltas.isEmpty)
        #expect(harness.control(upsert("f", item("2", data: ["name": "new"]))).replies[0]["ok"] == true)
        #expect(harness.control(["op": "delete", "feed": "f", "id": "1"]).replies[0]["ok"] == true)
        #expect(harness.control(upsert("f", item("3"))).replies[0]["ok"] == true)
        expectLimit(
            harness.control(["op": "reset", "feed": "f", "items": [item("a"), item("b"), item("c")]]).replies[0],
            "limits.max_items_per_feed")
        #expect(harness.engine.feeds["f"]?.itemCount == 2)
        // Duplicates count once: the last of each id is kept.
        #expect(
            harness.control(["op": "reset", "feed": "f", "items": [item("a"), item("b"), item("a")]]).replies[0]["ok"]
                == true)
    }

    @Test("over ingest, a refused item is an error event on the feed's topic")
    func ingest() {
        let harness = harness(EngineLimits(itemsPerFeed: 1))
        let result = harness.ingest([upsert("f", item("1")).serialized(), upsert("f", item("2")).serialized()])
        #expect(result.errors.count == 1)
        #expect(result.errors.first?["code"] == "limit_exceeded")
        #expect(result.errors.first?["limit"] == "limits.max_items_per_feed")
        #expect(harness.engine.feeds["f"]?.itemCount == 1)
    }

    @Test("a section past limits.max_sections_per_feed is refused, declared or named by an item")
    func sections() {
        let harness = harness(EngineLimits(sectionsPerFeed: 2))
        _ = harness.control([
            upsert("f", item("1", section: "a")), ["op": "section", "feed": "f", "section": ["id": "b"]],
        ])
        expectLimit(
            harness.control(["op": "section", "feed": "f", "section": ["id": "c"]]).replies[0],
            "limits.max_sections_per_feed")
        expectLimit(harness.control(upsert("f", item("2", section: "c"))).replies[0], "limits.max_sections_per_feed")
        #expect(harness.control(upsert("f", item("2", section: "b"))).replies[0]["ok"] == true)
        #expect(
            harness.control(["op": "section", "feed": "f", "section": ["id": "a", "order": 3]]).replies[0]["ok"] == true
        )
        expectLimit(
            harness.control([
                "op": "reset", "feed": "f", "items": [item("x", section: "p"), item("y", section: "q")],
                "sections": [["id": "r"]],
            ]).replies[0], "limits.max_sections_per_feed")
        #expect(
            harness.control([
                "op": "reset", "feed": "f", "items": [item("x", section: "p")], "sections": [["id": "p"], ["id": "q"]],
            ]).replies[0]["ok"] == true)
    }

    @Test(
        "bytes past limits.max_stored_bytes are refused over every feed; a smaller replacement or a reset that shrinks passes"
    )
    func storedBytes() throws {
        let harness = EngineHarness()
        _ = harness.control(upsert("a", item("1")))
        let one = harness.engine.storedBytes
        #expect(one > 0)
        harness.engine.limits = EngineLimits(storedBytes: one * 3 + one / 2)
        #expect(
            harness.control([upsert("a", item("2")), upsert("b", item("1"))]).replies.allSatisfy { $0["ok"] == true })
        #expect(harness.engine.storedBytes == one * 3)
        let refused = harness.control(upsert("c", item("1"))).replies[0]
        expectLimit(refused, "limits.max_stored_bytes")
        expectLimit(
            harness.control(upsert("a", item("1", data: ["name": .string(String(repeating: "x", count: one))])))
                .replies[0], "limits.max_stored_bytes")
        #expect(harness.control(["op": "reset", "feed": "a", "items": [item("9")]]).replies[0]["ok"] == true)
        #expect(harness.engine.storedBytes == one * 2)
        #expect(harness.control(["op": "delete", "feed": "b", "id": "1"]).replies[0]["ok"] == true)
        #expect(harness.engine.storedBytes == one)
        #expect(harness.control(upsert("c", item("1"))).replies[0]["ok"] == true)
        #expect(harness.control(["op": "delete_section", "feed": "c", "id": "default"]).replies[0]["ok"] == true)
        #expect(harness.engine.storedBytes == one)
    }
}
