import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import RowCastTesting
import Testing

struct EngineTests {
    @Test("an upsert publishes one delta with seq 1 and the rendered row")
    func firstUpsert() throws {
        let harness = EngineHarness()
        let result = harness.control(upsert("cars", item("42", data: ["name": "Tesla"]), req: 7))
        #expect(
            result.replies == [["ok": true, "op": "upsert", "feed": "cars", "seq": 1, "epoch": "epoch-1", "req": 7]])
        let delta = try #require(result.deltas.first)
        #expect(result.deltas.count == 1)
        #expect(delta["seq"] == 1)
        let inserted = try #require(delta["sections"]?["inserted"]?.arrayValue?.first)
        #expect(inserted["id"] == "default")
        #expect(
            inserted["rows"] == [
                [
                    "id": "42", "type": "product", "cell": "productCell", "height": 44, "content": ["name": "Tesla"],
                    "actions": [],
                ]
            ])
    }

    @Test("replacing an item with an identical one publishes nothing and keeps seq")
    func identicalUpsert() {
        let harness = EngineHarness()
        _ = harness.control(upsert("cars", item("1")))
        let again = harness.control(upsert("cars", item("1")))
        #expect(again.deltas.isEmpty)
        #expect(again.replies[0]["seq"] == 1)
    }

    @Test("everything in one batch yields one delta per feed")
    func coalescing() {
        let harness = EngineHarness()
        let result = harness.control(
            (0..<50).map { upsert("cars", item("\(String($0))")) } + [upsert("bikes", item("b"))])
        #expect(result.deltas.count == 2)
        #expect(result.replies.allSatisfy { $0["ok"] == true })
        #expect(result.replies.map { $0["seq"] }.allSatisfy { $0 == 1 })
        #expect(harness.snapshot("cars")["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.count == 50)
    }

    @Test("rows are ordered by sort, then first arrival; replacing keeps the place")
    func ordering() throws {
        let harness = EngineHarness()
        _ = harness.control([
            upsert("f", item("a", sort: 2)), upsert("f", item("b")), upsert("f", item("c", sort: 2)),
            upsert("f", item("d", sort: -1)),
        ])
        _ = harness.control(upsert("f", item("a", sort: 2, data: ["name": "changed"])))
        let rows = try #require(harness.snapshot("f")["sections"]?.arrayValue?.first?["rows"]?.arrayValue)
        #expect(rows.map { $0["id"]!.stringValue! } == ["d", "b", "a", "c"])
    }

    @Test("bad messages get clear errors and cost nothing else")
    func badMessagesInterleaved() throws {
        let harness = EngineHarness()
        let result = harness.control([
            upsert("cars", item("1")),
            .string("not an object"),
            ["op": "upsert", "feed": "cars", "item": ["type": "product"]],
            ["op": "upsert", "feed": "cars", "item": ["id": "2"]],
            ["op": "launch", "feed": "cars"],
            ["feed": "cars"],
            ["op": "upsert", "feed": "bad feed!", "item": item("3")],
            upsert("cars", item("4", data: ["bad": true])),
            upsert("cars", item("5", data: ["garbage": true])),
            ["op": "upsert", "feed": "cars", "item": item("6"), "extra": 1],
            upsert("cars", item("7")),
        ])
        let codes = result.replies.map { $0["error"]?["code"]?.stringValue ?? "ok" }
        #expect(
            codes == [
                "ok", "invalid_request", "missing_field", "missing_field", "unknown_op", "missing_field",
                "invalid_field", "missing_field", "plugin_failed", "invalid_field", "ok",
            ])
        #expect(result.replies[2]["error"]?["field"] == "item.id")
        #expect(result.replies[3]["error"]?["field"] == "item.type")
        #expect(result.replies[7]["error"]?["field"] == "name")
        #expect(result.replies[7]["error"]?["id"] == "4")
        let rows = try #require(harness.snapshot("cars")["sections"]?.arrayValue?.first?["rows"]?.arrayValue)
        #expect(rows.map { $0["id"]!.stringValue! } == ["1", "7"])
    }

    @Test("malformed ingest messages are reported on the error topic")
    func ingestErrors() {
        let harness = EngineHarness()
        let result = harness.ingest([
            Array("{nope".utf8), upsert("cars", item("1")).serialized(),
            Array("{\"op\":\"delete\",\"feed\":\"cars\",\"id\":\"zz\"}".utf8),
        ])
        #expect(result.replies.isEmpty)
        #expect(result.deltas.count == 1)
        #expect(result.publications.filter { $0.topic == "errors" }.map { $0.body["code"] } == ["invalid_json"])
        #expect(result.publications.filter { $0.topic == "errors.cars" }.map { $0.body["code"] } == ["not_found"])
    }

    @Test("oversized and multipart ingest messages are refused")
    func sizeAndFrames() {
        let harness = EngineHarness()
        let big = Array(repeating: UInt8(ascii: " "), count: (1 << 20) + 1)
        var result = harness.ingest([big])
        #expect(result.errors.map { $0["code"] } == ["too_large"])
        result = harness.run([
            IncomingMessage(origin: .ingest, body: upsert("cars", item("1")).serialized(), frameCount: 2)
        ])
        #expect(result.errors.map { $0["code"] } == ["invalid_request"])
        #expect(result.deltas.isEmpty)
    }

    @Test("snapshot is not taken over ingest")
    func queriesOnlyOnControl() {
        let harness = EngineHarness()
        let result = harness.ingest([Array("{\"op\":\"snapshot\",\"feed\":\"cars\"}".utf8)])
        #expect(result.errors.map { $0["code"] } == ["unknown_op"])
    }

    @Test("an item of an unknown type is kept, reported once, and rendered when a plugin appears")
    func unknownType() throws {
        let harness = EngineHarness()
        var result = harness.control([
            upsert("cars", item("1", type: "truck")), upsert("cars", item("2", type: "truck")),
        ])
        #expect(result.replies.map { $0["warning"]?["code"] } == ["unknown_type", "unknown_type"])
        #expect(result.errors.map { $0["code"] } == ["unknown_type"])
        #expect(result.deltas.isEmpty)
        #expect(harness.snapshot("cars")["pending"] == 2)

        harness.renderer.itemTypes.insert("truck")
        result = harness.decode(publications: harness.engine.replaceRenderer(harness.renderer))
        #expect(result.deltas.count == 1)
        let rows = try #require(harness.snapshot("cars")["sections"]?.arrayValue?.first?["rows"]?.arrayValue)
        #expect(rows.map { $0["id"]!.stringValue! } == ["1", "2"])
        #expect(harness.snapshot("cars")["pending"] == 0)
    }

    @Test("a reset replaces the feed, keeps the last of duplicate ids and reports them")
    func reset() throws {
        let harness = EngineHarness()
        _ = harness.control([upsert("f", item("old1")), upsert("f", item("old2"))])
        let result = harness.control([
            "op": "reset", "feed": "f",
            "items": [
                item("a"), item("b", data: ["bad": true]), item("c", data: ["name": "first"]),
                item("c", data: ["name": "last"]),
            ],
        ])
        #expect(result.replies[0]["ok"] == true)
        #expect(result.replies[0]["rejected"]?.arrayValue?.map { $0["id"] } == ["b"])
        #expect(Set(result.errors.map { $0["code"]!.stringValue! }) == ["duplicate_id", "missing_field"])
        let rows = try #require(harness.snapshot("f")["sections"]?.arrayValue?.first?["rows"]?.arrayValue)
        #expect(rows.map { $0["id"]!.stringValue! } == ["a", "c"])
        #expect(rows[1]["content"]?["name"] == "last")
    }

    @Test("sections: declared, ordered, header rendered, deleted with their items")
    func sections() throws {
        let harness = EngineHarness(renderer: FakeRenderer(headerTypes: ["banner"]))
        _ = harness.control([
            upsert("f", item("a", section: "late")),
            [
                "op": "section", "feed": "f",
                "section": ["id": "top", "order": -1, "type": "banner", "header": ["title": "Deals"]],
            ],
            ["op": "section", "feed": "f", "section": ["id": "empty", "order": 5]],
        ])
        var sections = try #require(harness.snapshot("f")["sections"]?.arrayValue)
        #expect(sections.map { $0["id"]!.stringValue! } == ["top", "late", "empty"])
        #expect(sections[0]["headerRow"] == ["cell": "Header", "height": 30, "content": ["title": "Deals"]])
        #expect(sections[2]["rows"] == [])

        let result = harness.control([
            ["op": "delete_section", "feed": "f", "id": "late"],
            ["op": "delete_section", "feed": "f", "id": "nope"],
        ])
        #expect(result.replies.map { $0["error"]?["code"] } == [nil, "not_found"])
        sections = try #require(harness.snapshot("f")["sections"]?.arrayValue)
        #expect(sections.map { $0["id"]!.stringValue! } == ["top", "empty"])
        #expect(harness.engine.feeds["f"]?.itemCount == 0)
    }

    @Test("an undeclared section goes with its last row")
    func implicitSection() throws {
        let harness = EngineHarness()
        _ = harness.control([upsert("f", item("a", section: "x")), upsert("f", item("b", section: "y"))])
        _ = harness.control(["op": "delete", "feed": "f", "id": "a"])
        let sections = try #require(harness.snapshot("f")["sections"]?.arrayValue)
        #expect(sections.map { $0["id"]!.stringValue! } == ["y"])
    }

    @Test("a snapshot of a feed that does not exist has seq 0 and a null epoch")
    func emptySnapshot() {
        let snapshot = EngineHarness().snapshot("nothing")
        #expect(
            snapshot == [
                "ok": true, "op": "snapshot", "feed": "nothing", "seq": 0, "epoch": nil, "sections": [], "pending": 0,
            ])
    }

    @Test("select runs the plugin handler and publishes the action event")
    func select() {
        let harness = EngineHarness()
        _ = harness.control(
            upsert("cars", item("42", data: ["name": "x", "actions": [["name": "select", "kind": "show_detail"]]])))
        let result = harness.control(["op": "select", "feed": "cars", "id": "42"])
        #expect(result.replies[0]["event"] == ["kind": "show_detail", "id": "42"])
        #expect(result.publications.map(\.topic) == ["actions.cars"])
        let missing = harness.control(["op": "select", "feed": "cars", "id": "nope"])
        #expect(missing.replies[0]["error"]?["code"] == "not_found")
    }

    @Test("every delta of a random op sequence applies to the previous snapshot")
    func randomOperationsReplay() throws {
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"]))
        var replica = ReferenceReplica(snapshot: harness.snapshot("f"))
        var random = SplitMix64(state: 42)
        for round in 0..<300 {
            var batch: [JSONValue] = []
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let id = "i\(Int.random(in: 0..<25, using: &random))"
                let section = "s\(Int.random(in: 0..<4, using: &random))"
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<5:
                    let data: JSONObject = [
                        "name": .number(Double(Int.random(in: 0..<3, using: &random))),
                        "cell": Bool.random(using: &random) ? "A" : "B",
                    ]
                    batch.append(
                        upsert(
                            "f",
                            item(
                                id, type: Bool.random(using: &random) ? "product" : "ad", section: section,
                                sort: Double(Int.random(in: 0..<3, using: &random)), data: data)))
                case 5..<7: batch.append(["op": "delete", "feed": "f", "id": .string(id)])
                case 7:
                    batch.append([
                        "op": "section", "feed": "f",
                        "section": [
                            "id": .string(section), "order": .number(Double(Int.random(in: -2..<3, using: &random))),
                        ],
                    ])
                case 8: batch.append(["op": "delete_section", "feed": "f", "id": .string(section)])
                default:
                    let items = (0..<Int.random(in: 0..<8, using: &random)).map { _ in
                        item(
                            "i\(Int.random(in: 0..<25, using: &random))",
                            section: "s\(Int.random(in: 0..<4, using: &random))")
                    }
                    batch.append(["op": "reset", "feed": "f", "items": .array(items)])
                }
            }
            let result = harness.control(batch)
            #expect(result.deltas.count <= 1)
            for delta in result.deltas { try replica.apply(delta) }
            #expect(replica == ReferenceReplica(snapshot: harness.snapshot("f")), "round \(round)")
        }
    }
}
