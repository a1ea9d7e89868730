import Foundation
import RowCastClient
import RowCastJSON
import Testing

/// Interactions that change the feed, end to end: a real rowcastd runs the C fixture
/// `profile_plugin.c` (ABI 1 revision 2, `handle_action`) in a plugin host and in process; an
/// edit of the email through `select` with a value, a swipe to delete from a subscriber, bad
/// input, a producer pulling the action events it missed while down, and `locate`.
@Suite(.serialized)
struct InteractionEndToEndTests {
    static let isolations = ["process", "in_process"]

    static func profile(_ id: String, email: String, sort: Double = 0) -> JSONValue {
        [
            "op": "upsert", "feed": "people",
            "item": [
                "id": .string(id), "type": "profile", "sort": .number(sort),
                "data": ["name": "Ann", "email": .string(email)],
            ],
        ]
    }

    static func select(_ id: String, _ action: String, value: JSONValue? = nil) -> JSONValue {
        var object: JSONObject = [
            "op": "select", "feed": "people", "id": .string(id), "action": .string(action), "client": "phone",
        ]
        if let value { object["value"] = value }
        return .object(object)
    }

    static func rows(_ peer: RawPeer) throws -> [String: JSONValue] {
        PluginFaultEndToEndTests.rows(try peer.request(["op": "snapshot", "feed": "people"]))
    }

    static func start(
        _ isolation: String, plugins: TemporaryDirectory, state: TemporaryDirectory? = nil
    ) throws -> DaemonProcess {
        try DaemonProcess(
            pluginDirectory: plugins, stateDirectory: state, extraArguments: ["--plugin-isolation", isolation])
    }

    @Test(
        "an email edit through select with a value: the plugin's update is acked with the new seq, goes out as one delta, shows in the snapshot and survives a restart",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)), arguments: isolations)
    func editEmail(isolation: String) throws {
        let plugins = try FixturePlugin.directory(source: "profile_plugin.c", fileName: "librowcast-profile.so")
        var daemon = try Self.start(isolation, plugins: plugins)
        defer { daemon.stop() }
        var peer = try RawPeer(daemon)
        try peer.subscribe([Array("rows.people\0".utf8), Array("actions.people\0".utf8)])
        let loaded = try peer.request(["op": "plugins"])["plugins"]?.arrayValue ?? []
        #expect(loaded.first { $0["name"] == "profile" }?["abiRevision"] == 2, "\(loaded)")
        #expect(try peer.request(Self.profile("me", email: "ann@old.example"))["seq"] == 1)
        _ = try peer.delta(feed: "people", seq: 1)

        let reply = try peer.request(Self.select("me", "edit_email", value: "ann@new.example"))
        #expect(reply["ok"] == true, "\(reply)")
        #expect(reply["seq"] == 2)
        #expect(reply["change"] == "update")
        #expect(reply["eventSeq"] == 1)
        #expect(reply["event"] == ["kind": "email_changed", "email": "ann@new.example"])
        // One delta, seq 2, reconfiguring the row; and the action event with who asked.
        var deltas: [JSONValue] = []
        var event: JSONValue?
        while deltas.isEmpty || event == nil {
            let (topic, body) = try peer.receive { topic, _ in topic == "rows.people" || topic == "actions.people" }
            if topic == "actions.people" { event = body } else if body["event"] == "delta" { deltas.append(body) }
        }
        #expect(deltas.map { $0["seq"] } == [2])
        #expect(
            deltas[0]["rows"]?["reconfigured"]?.arrayValue?.first?["row"]?["content"]?["email"] == "ann@new.example")
        #expect(event?["requester"] == "phone")
        #expect(event?["eventSeq"] == 1)
        #expect(event?["value"] == "ann@new.example")
        #expect(try Self.rows(peer)["me"]?["content"]?["email"] == "ann@new.example")

        daemon.stop()
        daemon = try Self.start(isolation, plugins: plugins, state: daemon.stateDirectory)
        peer = try RawPeer(daemon)
        let snapshot = try peer.request(["op": "snapshot", "feed": "people"])
        #expect(snapshot["seq"] == 2)
        #expect(PluginFaultEndToEndTests.rows(snapshot)["me"]?["content"]?["email"] == "ann@new.example")
    }

    @Test(
        "a swipe to delete from a subscriber (plugin returns delete); a producer that was down pulls the delete request after a restart",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)), arguments: isolations)
    func swipeToDeleteAndPull(isolation: String) throws {
        let plugins = try FixturePlugin.directory(source: "profile_plugin.c", fileName: "librowcast-profile.so")
        var daemon = try Self.start(isolation, plugins: plugins)
        defer { daemon.stop() }
        var peer = try RawPeer(daemon)
        _ = try peer.request(Self.profile("m1", email: "a@x.example", sort: 1))
        _ = try peer.request(Self.profile("m2", email: "b@x.example", sort: 2))
        #expect(try peer.request(Self.select("m1", "select"))["eventSeq"] == 1)
        // The producer handled event 1, then went down; the subscriber swipes m2 away.
        let delete = try peer.request(Self.select("m2", "delete"))
        #expect(delete["change"] == "delete", "\(delete)")
        #expect(delete["eventSeq"] == 2)
        #expect(try Self.rows(peer).keys.sorted() == ["m1"])

        daemon.crash()
        daemon = try Self.start(isolation, plugins: plugins, state: daemon.stateDirectory)
        let client = try ControlClient(endpoint: daemon.control)
        defer { client.close() }
        let page = try client.events(feed: "people", after: 1)
        #expect(page.covered)
        #expect(page.last == 2)
        #expect(page.events.count == 1)
        #expect(page.events.first?["action"] == "delete")
        #expect(page.events.first?["id"] == "m2")
        #expect(page.events.first?["change"] == "delete")
        #expect(page.events.first?["requester"] == "phone")
        // The next event continues the sequence.
        peer = try RawPeer(daemon)
        // A change is recorded even when the handler returns no event object.
        #expect(try peer.request(Self.select("m1", "starred"))["eventSeq"] == 3)
        #expect(try peer.request(Self.select("m1", "select"))["eventSeq"] == 4)
        #expect(try client.locate(feed: "people", id: "m1").row == 0)
    }

    @Test(
        "bad selects: a value of the wrong type, an action the row does not have, a missing item; each a clear error and nothing else changes",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)))
    func badInput() throws {
        let plugins = try FixturePlugin.directory(source: "profile_plugin.c", fileName: "librowcast-profile.so")
        let daemon = try Self.start("process", plugins: plugins)
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        _ = try peer.request(Self.profile("me", email: "ann@x.example"))
        let before = try peer.request(["op": "snapshot", "feed": "people"])
        let cases: [(JSONValue, String, String)] = [
            (Self.select("me", "edit_email", value: 42), "invalid_value", "edit_email"),
            (Self.select("me", "edit_email", value: "no at sign"), "invalid_value", "edit_email"),
            (Self.select("me", "delete", value: true), "invalid_value", "delete"),
            (Self.select("me", "buy"), "unknown_action", "buy"),
            (Self.select("ghost", "delete"), "not_found", "ghost"),
        ]
        for (request, code, named) in cases {
            let reply = try peer.request(request)
            #expect(reply["ok"] == false)
            #expect(reply["error"]?["code"] == .string(code), "\(reply)")
            #expect(reply["error"]?["message"]?.stringValue?.contains(named) == true, "\(reply)")
        }
        let after = try peer.request(["op": "snapshot", "feed": "people"])
        #expect(after["seq"] == before["seq"])
        #expect(after["sections"] == before["sections"])
        #expect(try peer.request(["op": "events", "feed": "people"])["last"] == 0)
        #expect(try peer.request(["op": "locate", "feed": "people", "id": "ghost"])["error"]?["code"] == "not_found")
    }
}
