import RowCastJSON
import Testing

/// Requests that meet a paused plugin (`plugin_unavailable`) change nothing: an upsert, a
/// reset (which would otherwise delete the items it could not render) and a staged reset's
/// part are refused whole, and none of their answers is remembered.
@Suite("Paused plugin")
struct PausedPluginTests {
    @Test("an upsert and a reset that meet a paused plugin are refused whole; the feed keeps its items")
    func resetIsRefusedWhole() {
        let harness = EngineHarness()
        _ = harness.control([upsert("f", item("1")), upsert("f", item("2"))])
        let before = harness.snapshot("f")
        harness.renderer.paused = true
        let refusedUpsert = harness.control(upsert("f", item("3"), req: 1)).replies[0]
        #expect(refusedUpsert["error"]?["code"] == "plugin_unavailable", "\(refusedUpsert)")
        let reset: JSONValue = [
            "op": "reset", "feed": "f", "items": [item("1"), item("2"), item("4")], "client": "c", "req": 2,
        ]
        let refused = harness.control(reset).replies[0]
        #expect(refused["error"]?["code"] == "plugin_unavailable", "\(refused)")
        #expect(refused["error"]?["message"]?.stringValue?.contains("nothing of the request was applied") == true)
        #expect(harness.snapshot("f") == before, "no item was deleted, none added")
        harness.renderer.paused = false
        let applied = harness.control(reset).replies[0]
        #expect(applied["ok"] == true, "the same request after the pause is applied, not answered from memory")
        #expect(harness.snapshot("f")["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.count == 3)
    }

    @Test("a reset refused for a pause lists none of the items it quarantined before it")
    func refusedResetQuarantinesNothing() {
        let harness = EngineHarness()
        _ = harness.control(upsert("f", item("1")))
        harness.renderer.pauseAfterRenders = 1
        let reset: JSONValue = [
            "op": "reset", "feed": "f",
            "items": [item("c", data: ["crash": true]), item("2"), item("3")],
        ]
        let refused = harness.control(reset).replies[0]
        #expect(refused["error"]?["code"] == "plugin_unavailable", "\(refused)")
        #expect(harness.engine.quarantine.count == 0, "the crashed item was not stored, so it is not listed")
    }

    @Test("a staged reset's part that meets a paused plugin is not added")
    func stagedPartIsRefused() {
        let harness = EngineHarness()
        let token = harness.control(["op": "reset_begin", "feed": "f"]).replies[0]["reset"] ?? .null
        harness.renderer.paused = true
        let part = harness.control([
            "op": "reset_append", "feed": "f", "reset": token, "part": 0, "items": [item("1")],
        ]).replies[0]
        #expect(part["error"]?["code"] == "plugin_unavailable", "\(part)")
        harness.renderer.paused = false
        let again = harness.control([
            "op": "reset_append", "feed": "f", "reset": token, "part": 0, "items": [item("1")],
        ]).replies[0]
        #expect(again["ok"] == true, "\(again)")
    }
}
