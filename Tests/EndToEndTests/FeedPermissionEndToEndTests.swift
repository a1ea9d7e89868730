import Foundation
import RowCastJSON
import Testing
import ZeroMQ

/// Per-feed permissions of CURVE clients: the allow lines of each key file decide what its
/// client may publish, reset, read (control and publish sockets alike), select and administer;
/// the same with one engine loop and with two (the front names each message's client).
@Suite(.serialized)
struct FeedPermissionEndToEndTests {
    typealias Curve = CurveEndToEndTests

    @Test(
        "a known key without reset gets forbidden on a reset, naming the permission and the feed, and the items stay",
        arguments: [1, 2])
    func resetForbidden(threads: Int) throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let admin = try Curve.client("admin", in: clients, allow: ["all *"])
        let producer = try Curve.client("producer", in: clients, allow: ["publish cars*"])
        let daemon = try Curve.daemon(clients: clients, threads: threads)
        let adminPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, admin))
        let producerPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, producer))
        try adminPeer.subscribe([Array("errors.cars".utf8) + [0]])

        #expect(
            try producerPeer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1")])["ok"]
                == true)
        let reset = try producerPeer.request(["op": "reset", "feed": "cars", "items": []])
        #expect(reset["ok"] == false)
        #expect(reset["error"]?["code"] == "forbidden")
        #expect(reset["error"]?["feed"] == "cars")
        let message = reset["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("client \"producer\" lacks the reset permission on feed \"cars\""), "\(message)")

        let elsewhere = try producerPeer.request([
            "op": "upsert", "feed": "payroll", "item": DaemonEndToEndTests.product("2"),
        ])
        #expect(elsewhere["error"]?["code"] == "forbidden")
        #expect(try producerPeer.request(["op": "snapshot", "feed": "cars"])["error"]?["code"] == "forbidden")
        let status = try producerPeer.request(["op": "status"])
        #expect(status["error"]?["code"] == "forbidden")
        #expect(status["error"]?["message"]?.stringValue?.contains("admin") == true)

        // Over ingest too: a forbidden reset is refused on the feed's error topic, not applied.
        let ingestReset: JSONValue = ["op": "reset", "feed": "cars", "items": [], "req": "ingest-reset"]
        try producerPeer.pushRaw(ingestReset.serialized())
        let (_, event) = try adminPeer.receive { topic, body in
            topic == "errors.cars" && body.description.contains("ingest-reset")
        }
        #expect(event.description.contains("forbidden"), "\(event)")

        let snapshot = try adminPeer.request(["op": "snapshot", "feed": "cars"])
        #expect(snapshot["ok"] == true)
        #expect(snapshot.description.contains("\"id\":\"1\""), "\(snapshot)")
        #expect(!(try adminPeer.request(["op": "status"])["feeds"]?.description.contains("payroll") ?? true))
    }

    @Test(
        "a subscriber without read on payroll receives none of its deltas or errors, nor a prefix that would match it, while it receives cars",
        arguments: [1, 2])
    func readEnforcedOnPublish(threads: Int) throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let admin = try Curve.client("admin", in: clients, allow: ["all *"])
        let viewer = try Curve.client("viewer", in: clients, allow: ["read cars"])
        let daemon = try Curve.daemon(clients: clients, threads: threads)
        let adminPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, admin))
        let viewerPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, viewer))
        try adminPeer.subscribe([Array("actions.payroll".utf8) + [0], Array("errors.payroll".utf8) + [0]])
        try viewerPeer.subscribe([
            Array("rows.payroll".utf8) + [0], Array("errors.payroll".utf8) + [0], Array("actions.payroll".utf8) + [0],
            Array("rows.".utf8), Array("errors".utf8), [], Array("rows.cars".utf8) + [0],
        ])

        // payroll first, then cars: a PUB socket keeps order, so by the time the cars delta
        // arrives everything of payroll would have arrived before it.
        #expect(
            try adminPeer.request(["op": "upsert", "feed": "payroll", "item": DaemonEndToEndTests.product("p1")])["ok"]
                == true)
        let badItem: JSONValue = [
            "op": "upsert", "feed": "payroll", "item": ["id": "p2", "type": "product", "data": [:]],
        ]
        try adminPeer.pushRaw(badItem.serialized())
        #expect(try adminPeer.request(["op": "select", "feed": "payroll", "id": "p1"])["ok"] == true)
        // The admin, who may read payroll, does get its error and action events, in either
        // order: the bad item went over ingest and the select over control, two sockets.
        var adminTopics: Set<String> = []
        _ = try adminPeer.receive { topic, _ in
            adminTopics.insert(topic)
            return adminTopics.isSuperset(of: ["errors.payroll", "actions.payroll"])
        }
        #expect(
            try adminPeer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("c1")])["ok"]
                == true)

        var seen: [String] = []
        _ = try viewerPeer.receive { topic, body in
            seen.append(topic)
            return topic == "rows.cars" && body["seq"] == 1
        }
        #expect(!seen.contains { $0.contains("payroll") }, "the viewer received \(seen)")
        #expect(seen.filter { $0 == "rows.cars" }.count == 1, "\(seen)")

        #expect(try viewerPeer.request(["op": "snapshot", "feed": "payroll"])["error"]?["code"] == "forbidden")
        #expect(try viewerPeer.request(["op": "snapshot", "feed": "cars"])["ok"] == true)
        #expect(try viewerPeer.request(["op": "select", "feed": "cars", "id": "c1"])["error"]?["code"] == "forbidden")
        // Pulling action events and locating rows read the feed: the viewer may on cars only;
        // the admin's select on payroll is recorded with its CURVE name as the requester.
        #expect(try viewerPeer.request(["op": "events", "feed": "payroll"])["error"]?["code"] == "forbidden")
        #expect(
            try viewerPeer.request(["op": "locate", "feed": "payroll", "id": "p1"])["error"]?["code"] == "forbidden")
        #expect(try viewerPeer.request(["op": "events", "feed": "cars"])["ok"] == true)
        #expect(try viewerPeer.request(["op": "locate", "feed": "cars", "id": "c1"])["row"] == 0)
        let payrollEvents = try adminPeer.request(["op": "events", "feed": "payroll"])
        #expect(payrollEvents["events"]?.arrayValue?.first?["requester"] == "admin", "\(payrollEvents)")
        let status = try adminPeer.request(["op": "status"])
        #expect((status["curve"]?["refusedSubscriptions"]?.numberValue ?? 0) >= 6, "\(status["curve"] ?? .null)")
        #expect(daemon.log.contains("refused a subscription"))
    }

    @Test(
        "permissions change on reload: a grant added applies to the open connection, one removed is gone",
        arguments: [1, 2])
    func permissionsReload(threads: Int) throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let admin = try Curve.client("admin", in: clients, allow: ["all *"])
        let producer = try Curve.client("producer", in: clients, allow: ["publish cars"])
        let daemon = try Curve.daemon(clients: clients, threads: threads)
        let adminPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, admin))
        let producerPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, producer))
        #expect(
            try producerPeer.request(["op": "reset", "feed": "cars", "items": []])["error"]?["code"] == "forbidden")

        try "public-key = \"\(producer.publicKey)\"\nallow = \"publish,reset cars\"\n".write(
            toFile: clients.path + "/producer.key", atomically: true, encoding: .utf8)
        #expect(try adminPeer.request(["op": "reload"])["ok"] == true)
        #expect(try producerPeer.request(["op": "reset", "feed": "cars", "items": []])["ok"] == true)

        try FileManager.default.removeItem(atPath: clients.path + "/producer.key")
        #expect(try adminPeer.request(["op": "reload"])["ok"] == true)
        #expect(
            try producerPeer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1")])[
                "error"]?["code"] == "forbidden")
    }
}
