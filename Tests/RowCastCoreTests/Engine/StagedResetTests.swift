@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastJSON
import Testing

/// Resets in parts: nothing changes before the commit, the commit gives exactly what one
/// reset of the same contents gives, a part sent twice counts once, and an abandoned or
/// unknown reset changes nothing.
struct StagedResetTests {
    static let contents: [JSONValue] = (0..<30).map { item("\($0)", section: "s\($0 % 3)", sort: Double(30 - $0)) }

    private func begin(_ harness: EngineHarness, feed: String = "f") throws -> String {
        let reply = harness.control(["op": "reset_begin", "feed": .string(feed)]).replies[0]
        #expect(reply["ok"] == true, "\(reply)")
        return try #require(reply["reset"]?.stringValue)
    }

    private func append(
        _ harness: EngineHarness, _ token: String, part: Int, items: [JSONValue], sections: [JSONValue] = []
    ) -> EngineHarness.Result {
        harness.control([
            "op": "reset_append", "feed": "f", "reset": .string(token), "part": .number(Double(part)),
            "items": .array(items), "sections": .array(sections),
        ])
    }

    @Test("parts, committed, give what one reset gives; nothing shows before the commit; a repeated part counts once")
    func commitMatchesOneReset() throws {
        let whole = EngineHarness()
        _ = whole.control(upsert("f", item("old")))
        _ = whole.control([
            "op": "reset", "feed": "f", "items": .array(Self.contents), "sections": [["id": "s2", "order": -1]],
        ])

        let parts = EngineHarness()
        _ = parts.control(upsert("f", item("old")))
        let token = try begin(parts)
        let first = append(
            parts, token, part: 0, items: Array(Self.contents[0..<10]), sections: [["id": "s2", "order": -1]])
        #expect(first.replies[0]["items"] == 10)
        #expect(first.deltas.isEmpty)
        #expect(append(parts, token, part: 1, items: Array(Self.contents[10..<20])).replies[0]["items"] == 20)
        let again = append(parts, token, part: 1, items: Array(Self.contents[10..<20])).replies[0]
        #expect(again["duplicate"] == true)
        #expect(again["items"] == 20)
        _ = append(parts, token, part: 2, items: Array(Self.contents[20..<30]))
        #expect(parts.snapshot("f")["seq"] == 1)
        #expect(parts.snapshot("f")["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.map { $0["id"] } == ["old"])

        let commit = parts.control(["op": "reset_commit", "feed": "f", "reset": .string(token)])
        #expect(commit.replies[0]["ok"] == true, "\(commit.replies[0])")
        #expect(commit.replies[0]["seq"] == 2)
        #expect(commit.deltas.count == 1)
        #expect(parts.snapshot("f")["sections"] == whole.snapshot("f")["sections"])
        let twice = parts.control(["op": "reset_commit", "feed": "f", "reset": .string(token)]).replies[0]
        #expect(twice["error"]?["code"] == "not_found")
    }

    @Test("an id sent again in a later part replaces the earlier copy, at the later place, with a duplicate_id event")
    func duplicatesAcrossParts() throws {
        let harness = EngineHarness()
        let token = try begin(harness)
        _ = append(harness, token, part: 0, items: [item("a"), item("b")])
        let second = append(harness, token, part: 1, items: [item("a", data: ["name": "new"])])
        #expect(second.errors.map { $0["code"] } == ["duplicate_id"])
        _ = harness.control(["op": "reset_commit", "feed": "f", "reset": .string(token)])
        let rows = try #require(harness.snapshot("f")["sections"]?.arrayValue?.first?["rows"]?.arrayValue)
        #expect(rows.map { $0["id"] } == ["b", "a"])
        #expect(rows.last?["content"]?["name"] == "new")
    }

    @Test(
        "an unknown reset, another feed's, or a part past a limit is refused; a reset never committed changes nothing")
    func refusals() throws {
        let harness = EngineHarness()
        _ = harness.control(upsert("f", item("kept")))
        harness.engine.limits.itemsPerFeed = 5
        let token = try begin(harness)
        #expect(append(harness, token, part: 0, items: [item("1"), item("2"), item("3")]).replies[0]["ok"] == true)
        #expect(
            append(harness, token, part: 1, items: [item("4"), item("5"), item("6")]).replies[0]["error"]?["code"]
                == "limit_exceeded")
        // The refused part was not taken: sent again once there is room, it is added.
        harness.engine.limits.itemsPerFeed = 6
        let again = append(harness, token, part: 1, items: [item("4"), item("5"), item("6")]).replies[0]
        #expect(again["duplicate"] == nil, "\(again)")
        #expect(again["items"] == 6)
        harness.engine.limits.itemsPerFeed = 5
        #expect(
            harness.control(["op": "reset_append", "feed": "g", "reset": .string(token), "part": 2, "items": []])
                .replies[0]["error"]?["code"] == "not_found")
        #expect(
            harness.control(["op": "reset_commit", "feed": "f", "reset": "nope"]).replies[0]["error"]?["code"]
                == "not_found")
        #expect(
            harness.control(["op": "reset_append", "feed": "f", "reset": .string(token), "part": -1]).replies[0][
                "error"]?["code"] == "invalid_field")
        // Over ingest, the steps are refused: each must be answered.
        let begin: JSONValue = ["op": "reset_begin", "feed": "f"]
        #expect(harness.ingest([begin.serialized()]).errors.first?["code"] == "unknown_op")
        #expect(harness.snapshot("f")["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.map { $0["id"] } == ["kept"])
    }
}
