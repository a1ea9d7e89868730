import Foundation
import RowCastJSON
import Testing

/// `rowcast drop --feed`: the feed's subscribers are told (a last delta that empties it), its
/// place is free, and under CURVE it takes the reset permission.
@Suite(.serialized)
struct DropEndToEndTests {
    typealias Curve = CurveEndToEndTests

    @Test("rowcast drop empties the feed for a subscriber, frees its place under max_feeds and says what it held")
    func dropWithCommandLine() throws {
        let daemon = try DaemonProcess(extraArguments: ["--max-feeds", "1"])
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        for id in ["1", "2"] {
            #expect(
                try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product(id)])["ok"]
                    == true)
        }
        try peer.subscribe([Array("rows.cars".utf8) + [0]])
        let full = try peer.request(["op": "upsert", "feed": "boats", "item": DaemonEndToEndTests.product("1")])
        #expect(full["error"]?["code"] == "limit_exceeded")

        let command = try CommandRunner(["drop", "--feed", "cars", "--control", daemon.control])
        #expect(command.wait(timeout: 20) == 0, "\(command.stderr)")
        #expect(command.stdout.contains("dropped cars: 2 items, 1 section, last seq 3"), "\(command.stdout)")
        let delta = try peer.delta(feed: "cars", seq: 3)
        #expect(delta["seq"] == 3, "\(delta)")
        #expect(delta["sections"]?["deleted"]?.arrayValue?.count == 1)

        #expect(
            try peer.request(["op": "upsert", "feed": "boats", "item": DaemonEndToEndTests.product("1")])["ok"] == true)
        let missing = try CommandRunner(["drop", "--feed", "cars", "--control", daemon.control])
        #expect(missing.wait(timeout: 20) == 1)
        #expect(missing.stderr.contains("not_found"), "\(missing.stderr)")
    }

    @Test("under CURVE a key without reset on the feed is forbidden to drop it, and the feed stays")
    func dropNeedsReset() throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let admin = try Curve.client("admin", in: clients, allow: ["all *"])
        let producer = try Curve.client("producer", in: clients, allow: ["publish cars*", "read cars*"])
        let daemon = try Curve.daemon(clients: clients)
        let producerPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, producer))
        #expect(
            try producerPeer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1")])["ok"]
                == true)
        let refused = try producerPeer.request(["op": "drop", "feed": "cars"])
        #expect(refused["error"]?["code"] == "forbidden", "\(refused)")
        #expect(
            refused["error"]?["message"]?.stringValue?.contains("lacks the reset permission on feed \"cars\"") == true)
        #expect(try producerPeer.request(["op": "snapshot", "feed": "cars"])["ok"] == true)
        let adminPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, admin))
        #expect(try adminPeer.request(["op": "drop", "feed": "cars"])["ok"] == true)
    }

    @Test(
        "a key with max_feeds = 1 creates one feed; the next is limit_exceeded until it drops the first, whatever loop serves each",
        arguments: [1, 2])
    func quotaUnderCurve(threads: Int) throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let tenant = try Curve.client("tenant", in: clients, allow: ["all cars*"])
        let path = clients.path + "/tenant.key"
        try (try String(contentsOfFile: path, encoding: .utf8) + "max_feeds = 1\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        let daemon = try Curve.daemon(clients: clients, threads: threads)
        let peer = try RawPeer(daemon, curve: try Curve.keys(daemon, tenant))
        #expect(
            try peer.request(["op": "upsert", "feed": "cars-a", "item": DaemonEndToEndTests.product("1")])["ok"]
                == true)
        let refused = try peer.request(["op": "upsert", "feed": "cars-b", "item": DaemonEndToEndTests.product("1")])
        #expect(refused["error"]?["code"] == "limit_exceeded", "\(refused)")
        #expect(refused["error"]?["limit"] == "max_feeds of client tenant")
        #expect(try peer.request(["op": "drop", "feed": "cars-a"])["ok"] == true)
        #expect(
            try peer.request(["op": "upsert", "feed": "cars-b", "item": DaemonEndToEndTests.product("1")])["ok"]
                == true)
    }
}
