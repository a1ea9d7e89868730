import Foundation
import RowCastJSON
import RowCastWire
import Testing
import ZeroMQ

/// CURVE with several engine loops (`--engine-threads`; docs/OPERATIONS.md, "Engine threads"):
/// the front names each message's client to its loop and the publish proxy checks every
/// subscription, so the grants, the error codes, the requester of an action and the
/// subscriptions refused are those of one loop, for feeds on every loop. Each test runs with 1
/// loop and with 3; its feeds are on loops 0, 1 and 2 of 3.
@Suite(.serialized)
struct CurveEngineThreadsEndToEndTests {
    typealias Curve = CurveEndToEndTests

    /// Feeds served by loops 0, 1 and 2 of 3.
    static let feeds = ["bikes", "cars", "orders"]

    static func product(_ id: String) -> JSONValue { DaemonEndToEndTests.product(id) }

    @Test("the test's feeds are on every loop of 3")
    func feedsSpreadOverLoops() {
        #expect(Self.feeds.map { EngineLoopSlotIndex.of($0, loops: 3) } == [0, 1, 2])
    }

    @Test(
        "on every loop a granted client publishes over both sockets and reads; an ungranted one gets forbidden, naming the feed",
        arguments: [1, 3])
    func grantsOnEveryLoop(threads: Int) throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let admin = try Curve.client("admin", in: clients, allow: ["all *"])
        let writer = try Curve.client("writer", in: clients, allow: ["publish,read bikes cars orders"])
        let reader = try Curve.client("reader", in: clients, allow: ["read bikes cars orders"])
        let daemon = try Curve.daemon(clients: clients, threads: threads)
        defer { daemon.stop() }
        let adminPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, admin))
        let writerPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, writer))
        let readerPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, reader))
        try adminPeer.subscribe(Self.feeds.map { Array("errors.\($0)".utf8) + [0] })
        try readerPeer.subscribe(Self.feeds.map { Array("rows.\($0)".utf8) + [0] })

        for feed in Self.feeds {
            #expect(
                try writerPeer.request(["op": "upsert", "feed": .string(feed), "item": Self.product("1")])["ok"] == true
            )
            let refused = try readerPeer.request(["op": "upsert", "feed": .string(feed), "item": Self.product("2")])
            #expect(refused["error"]?["code"] == "forbidden", "\(refused)")
            #expect(refused["error"]?["feed"] == .string(feed))
            let message = refused["error"]?["message"]?.stringValue ?? ""
            #expect(
                message.contains("client \"reader\" lacks the publish permission on feed \"\(feed)\""), "\(message)")
            #expect(
                try readerPeer.request(["op": "reset", "feed": .string(feed), "items": []])["error"]?["code"]
                    == "forbidden")
            #expect(try readerPeer.request(["op": "snapshot", "feed": .string(feed)])["ok"] == true)
            // Over ingest: the writer's upsert is applied, the reader's refused on the error topic.
            try writerPeer.pushRaw(
                (["op": "upsert", "feed": .string(feed), "item": Self.product("3")] as JSONValue).serialized())
            let ingestRefused: JSONValue = [
                "op": "upsert", "feed": .string(feed), "item": Self.product("4"), "req": .string("ingest-\(feed)"),
            ]
            try readerPeer.pushRaw(ingestRefused.serialized())
            let (_, event) = try adminPeer.receive { topic, body in
                topic == "errors.\(feed)" && body.description.contains("ingest-\(feed)")
            }
            #expect(event.description.contains("forbidden"), "\(event)")
        }
        // The reader receives every feed's deltas: the writer's two upserts, on each loop.
        var pending = Set(Self.feeds)
        _ = try readerPeer.receive { topic, body in
            if topic.hasPrefix("rows."), body["seq"] == 2 { pending.remove(String(topic.dropFirst(5))) }
            return pending.isEmpty
        }
        for feed in Self.feeds {
            let snapshot = try adminPeer.request(["op": "snapshot", "feed": .string(feed)])
            #expect(snapshot.description.contains("\"id\":\"3\""), "\(snapshot)")
            #expect(!snapshot.description.contains("\"id\":\"2\"") && !snapshot.description.contains("\"id\":\"4\""))
        }
        let status = try adminPeer.request(["op": "status"])
        #expect(status["curve"]?["clients"] == ["admin", "reader", "writer"])
        #expect((status["curve"]?["admitted"]?.numberValue ?? 0) >= 9, "\(status["curve"] ?? .null)")
    }

    @Test(
        "on every loop a subscription the client may not read delivers nothing, and an action's event names its requester",
        arguments: [1, 3])
    func subscriptionsAndRequesters(threads: Int) throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let admin = try Curve.client("admin", in: clients, allow: ["all *"])
        let viewer = try Curve.client("viewer", in: clients, allow: ["read cars"])
        let daemon = try Curve.daemon(clients: clients, threads: threads)
        defer { daemon.stop() }
        let adminPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, admin))
        let viewerPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, viewer))
        let forbidden = ["bikes", "orders"]
        try adminPeer.subscribe(
            forbidden.flatMap { [Array("rows.\($0)".utf8) + [0], Array("actions.\($0)".utf8) + [0]] })
        try viewerPeer.subscribe(
            forbidden.flatMap { feed in
                ["rows.", "errors.", "actions."].map { Array("\($0)\(feed)".utf8) + [0] }
            } + [Array("rows.".utf8), [], Array("rows.cars".utf8) + [0]])

        for feed in forbidden {
            #expect(
                try adminPeer.request(["op": "upsert", "feed": .string(feed), "item": Self.product("1")])["ok"] == true)
            #expect(try adminPeer.request(["op": "select", "feed": .string(feed), "id": "1"])["ok"] == true)
        }
        // Everything of the forbidden feeds reached the admin before the cars upsert: the proxy
        // sends each message to every subscriber in turn, so the viewer would have it first too.
        var adminSeen: Set<String> = []
        _ = try adminPeer.receive { topic, body in
            if topic.hasPrefix("actions.") {
                #expect(body["requester"] == "admin", "\(body)")
            }
            adminSeen.insert(topic)
            return adminSeen.isSuperset(of: forbidden.flatMap { ["rows.\($0)", "actions.\($0)"] })
        }
        #expect(try adminPeer.request(["op": "upsert", "feed": "cars", "item": Self.product("c1")])["ok"] == true)
        var seen: [String] = []
        _ = try viewerPeer.receive { topic, body in
            seen.append(topic)
            return topic == "rows.cars" && body["seq"] == 1
        }
        #expect(!seen.contains { $0.hasSuffix("bikes") || $0.hasSuffix("orders") }, "the viewer received \(seen)")

        for feed in forbidden {
            let events = try adminPeer.request(["op": "events", "feed": .string(feed)])
            #expect(events["events"]?.arrayValue?.first?["requester"] == "admin", "\(events)")
            #expect(
                try viewerPeer.request(["op": "events", "feed": .string(feed)])["error"]?["code"] == "forbidden")
        }
        let status = try adminPeer.request(["op": "status"])
        #expect((status["curve"]?["refusedSubscriptions"]?.numberValue ?? 0) >= 8, "\(status["curve"] ?? .null)")
        #expect(daemon.log.contains("refused a subscription"))
    }

    @Test(
        "a reload that changes a grant applies on every loop, to requests and to subscriptions, and one removed is gone",
        arguments: [1, 3])
    func reloadOnEveryLoop(threads: Int) throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let admin = try Curve.client("admin", in: clients, allow: ["all *"])
        let producer = try Curve.client("producer", in: clients, allow: ["publish bikes cars orders"])
        let daemon = try Curve.daemon(clients: clients, threads: threads)
        defer { daemon.stop() }
        let adminPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, admin))
        let producerPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, producer))
        for feed in Self.feeds {
            #expect(
                try producerPeer.request(["op": "reset", "feed": .string(feed), "items": []])["error"]?["code"]
                    == "forbidden")
        }

        try "public-key = \"\(producer.publicKey)\"\nallow = \"publish,reset,read bikes cars orders\"\n".write(
            toFile: clients.path + "/producer.key", atomically: true, encoding: .utf8)
        #expect(try adminPeer.request(["op": "reload"])["ok"] == true)
        try producerPeer.subscribe(Self.feeds.map { Array("rows.\($0)".utf8) + [0] })
        var pending: [String: JSONValue] = [:]
        for feed in Self.feeds {
            #expect(try producerPeer.request(["op": "reset", "feed": .string(feed), "items": []])["ok"] == true)
            let ack = try adminPeer.request(["op": "upsert", "feed": .string(feed), "item": Self.product("1")])
            #expect(ack["ok"] == true)
            pending["rows.\(feed)"] = ack["seq"] ?? .null
        }
        _ = try producerPeer.receive { topic, body in
            if pending[topic] == body["seq"] { pending[topic] = nil }
            return pending.isEmpty
        }

        try FileManager.default.removeItem(atPath: clients.path + "/producer.key")
        #expect(try adminPeer.request(["op": "reload"])["ok"] == true)
        for feed in Self.feeds {
            #expect(
                try producerPeer.request(["op": "upsert", "feed": .string(feed), "item": Self.product("2")])[
                    "error"]?["code"] == "forbidden")
        }
    }
}

/// Which of several engine loops serves a feed, as rowcastd assigns them.
enum EngineLoopSlotIndex {
    static func of(_ feed: String, loops: Int) -> Int { Partition(feed: feed).index % loops }
}
