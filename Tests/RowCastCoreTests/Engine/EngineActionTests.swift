import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import Testing

/// Select with a value, changes returned by the action handler, action events with their
/// event sequence, the `events` request and `locate`, on the engine alone.
@Suite
struct EngineActionTests {
    /// A profile row with a tap, an email edit, a toggle and a delete.
    static let actions: JSONValue = [
        ["name": "select", "kind": "open"],
        ["name": "edit_email", "kind": "edit", "role": "edit", "field": "email", "valueType": "email"],
        ["name": "starred", "kind": "toggle", "role": "toggle", "field": "starred"],
        ["name": "delete", "kind": "swipe", "role": "delete"],
    ]

    static func profile(
        _ id: String, email: String = "a@example.com", section: String? = nil, sort: Double? = nil
    ) -> JSONValue {
        item(id, section: section, sort: sort, data: ["name": "Ann", "email": .string(email), "actions": actions])
    }

    static func select(_ id: String, _ action: String, value: JSONValue? = nil, client: String? = nil) -> JSONValue {
        var object: JSONObject = ["op": "select", "feed": "people", "id": .string(id), "action": .string(action)]
        if let value { object["value"] = value }
        if let client { object["client"] = .string(client); object["req"] = 1 }
        return .object(object)
    }

    @Test(
        "an edit with a value updates the item through the plugin's change: one delta, the ack has the new seq and the event"
    )
    func editUpdatesItem() {
        let harness = EngineHarness()
        _ = harness.control(upsert("people", Self.profile("p1")))
        let result = harness.control(Self.select("p1", "edit_email", value: "new@example.com", client: "app"))
        let reply = result.replies[0]
        #expect(reply["ok"] == true)
        #expect(reply["seq"] == 2)
        #expect(reply["change"] == "update")
        #expect(reply["eventSeq"] == 1)
        #expect(result.deltas.count == 1)
        #expect(
            result.deltas.first?["rows"]?["reconfigured"]?.arrayValue?[0]["row"]?["content"]?["email"]
                == "new@example.com")
        let event = result.publications.first { $0.topic == "actions.people" }?.body
        #expect(event?["requester"] == "app")
        #expect(event?["eventSeq"] == 1)
        #expect(event?["value"] == "new@example.com")
        #expect(
            harness.snapshot("people")["sections"]?.arrayValue?[0]["rows"]?.arrayValue?[0]["content"]?["email"]
                == "new@example.com")
    }

    @Test("a select that names a user runs as that user: the event's requester (rowcastd checks act_as first)")
    func aSelectRunsAsItsUser() {
        let harness = EngineHarness()
        _ = harness.control(upsert("people", Self.profile("p1")))
        var request = Self.select("p1", "select", client: "gateway").objectValue!
        request["user"] = "alice"
        let result = harness.control(.object(request))
        #expect(result.replies[0]["ok"] == true)
        #expect(result.publications.first { $0.topic == "actions.people" }?.body["requester"] == "alice")
        request["user"] = ""
        request["req"] = 2
        #expect(harness.control(.object(request)).replies[0]["error"]?["field"] == "user")
    }

    @Test("a delete action removes the item in one delta")
    func deleteRemovesItem() {
        let harness = EngineHarness()
        _ = harness.control([upsert("people", Self.profile("p1")), upsert("people", Self.profile("p2"))])
        let result = harness.control(Self.select("p1", "delete"))
        #expect(result.replies[0]["change"] == "delete")
        #expect(result.deltas.count == 1)
        #expect(result.deltas.first?["rows"]?["deleted"] == [["id": "p1", "at": [0, 0]]])
        #expect(harness.snapshot("people")["sections"]?.arrayValue?[0]["rows"]?.arrayValue?.count == 1)
        // Sent again with the same client and req, a select gets its first answer and runs once.
        let first = harness.control(Self.select("p2", "delete", client: "app"))
        let again = harness.control(Self.select("p2", "delete", client: "app"))
        #expect(first.replies[0]["change"] == "delete")
        #expect(again.replies == first.replies)
        #expect(again.publications.isEmpty)
        #expect(harness.control(["op": "events", "feed": "people"]).replies[0]["last"] == 2)
    }

    @Test(
        "bad selects fail with a clear code and change nothing: wrong value type, unknown action, missing item, value on a tap"
    )
    func badSelects() {
        let harness = EngineHarness()
        _ = harness.control(upsert("people", Self.profile("p1")))
        let before = harness.snapshot("people")
        let cases: [(JSONValue, String, String)] = [
            (Self.select("p1", "edit_email", value: 42), "invalid_value", "edit_email"),
            (Self.select("p1", "edit_email", value: "not an address"), "invalid_value", "edit_email"),
            (Self.select("p1", "edit_email"), "invalid_value", "edit_email"),
            (Self.select("p1", "starred", value: "yes"), "invalid_value", "starred"),
            (Self.select("p1", "select", value: 1), "invalid_value", "select"),
            (Self.select("p1", "buy"), "unknown_action", "buy"),
            (Self.select("nobody", "delete"), "not_found", "nobody"),
        ]
        for (request, code, named) in cases {
            let result = harness.control(request)
            #expect(result.replies[0]["error"]?["code"] == .string(code), "\(request)")
            #expect(
                result.replies[0]["error"]?["message"]?.stringValue?.contains(named) == true, "\(result.replies[0])")
            #expect(result.publications.isEmpty, "\(request)")
        }
        #expect(harness.snapshot("people") == before)
        #expect(harness.control(["op": "events", "feed": "people"]).replies[0]["last"] == 0)
    }

    @Test("a toggle without a value flips the field; events after N pages and reports coverage")
    func eventsPage() {
        let harness = EngineHarness()
        _ = harness.control(upsert("people", Self.profile("p1")))
        for _ in 0..<2 { _ = harness.control(Self.select("p1", "starred")) }
        // A null value counts as none: the toggle flips.
        let nullValue = harness.control(Self.select("p1", "starred", value: .null)).replies[0]
        #expect(nullValue["ok"] == true, "\(nullValue)")
        #expect(
            harness.snapshot("people")["sections"]?.arrayValue?[0]["rows"]?.arrayValue?[0]["content"]?["starred"]
                == true)
        let all = harness.control(["op": "events", "feed": "people"]).replies[0]
        #expect(all["events"]?.arrayValue?.compactMap { $0["eventSeq"]?.numberValue } == [1, 2, 3])
        #expect(all["last"] == 3)
        #expect(all["covered"] == true)
        let later = harness.control(["op": "events", "feed": "people", "after": 1, "limit": 1]).replies[0]
        #expect(later["events"]?.arrayValue?.compactMap { $0["eventSeq"]?.numberValue } == [2])
        #expect(later["more"] == true)
        let bad = harness.control(["op": "events", "feed": "people", "after": -1]).replies[0]
        #expect(bad["error"]?["code"] == "invalid_field")
    }

    @Test("events beyond the retention are dropped and reported as not covered")
    func retention() {
        let harness = EngineHarness()
        harness.engine.actionEvents.retention = 2
        _ = harness.control(upsert("people", Self.profile("p1")))
        for _ in 0..<4 { _ = harness.control(Self.select("p1", "starred")) }
        let reply = harness.control(["op": "events", "feed": "people", "after": 0]).replies[0]
        #expect(reply["covered"] == false)
        #expect(reply["first"] == 3)
        #expect(reply["events"]?.arrayValue?.compactMap { $0["eventSeq"]?.numberValue } == [3, 4])
    }

    @Test("locate answers section and row index and the seq they hold at")
    func locate() {
        let harness = EngineHarness()
        _ = harness.control([
            upsert("people", Self.profile("a", section: "s1", sort: 1)),
            upsert("people", Self.profile("b", section: "s2", sort: 2)),
            upsert("people", Self.profile("c", section: "s2", sort: 1)),
            upsert("people", Self.profile("d", section: "s2", sort: 3)),
        ])
        let reply = harness.control(["op": "locate", "feed": "people", "id": "d"]).replies[0]
        #expect(reply["section"] == 1)
        #expect(reply["row"] == 2)
        #expect(reply["sectionId"] == "s2")
        #expect(reply["seq"] == 1)
        let snapshot = harness.snapshot("people")
        #expect(snapshot["sections"]?.arrayValue?[1]["rows"]?.arrayValue?[2]["id"] == "d")
        #expect(
            harness.control(["op": "locate", "feed": "people", "id": "zz"]).replies[0]["error"]?["code"] == "not_found")
    }
}
