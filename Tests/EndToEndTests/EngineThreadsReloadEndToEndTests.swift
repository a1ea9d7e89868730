import Foundation
import RowCastJSON
import RowCastWire
import Testing

/// A reload of `rowcastd --engine-threads 3` is one decision for every loop (docs/OPERATIONS.md,
/// "Engine threads"): the configuration, the client keys and the plugin directories are read
/// once, and every loop applies the same, which requests to feeds of each loop show.
@Suite(.serialized)
struct EngineThreadsReloadEndToEndTests {
    typealias Threads = EngineThreadsEndToEndTests

    /// A feed on each of the three loops.
    static let feeds = Threads.feeds(3, loops: 3, prefix: "reload")

    /// rowcastd with three engine loops, the configuration file `config` and the plugin files `plugins`.
    static func daemon(config: String, plugins: [String] = ["librowcast-product.so"]) throws -> DaemonProcess {
        try DaemonProcess(plugins: plugins, extraArguments: ["--config", config, "--engine-threads", "3"])
    }

    static func upsert(_ peer: RawPeer, _ feed: String, _ id: String) throws -> JSONValue {
        try peer.request(Threads.upsert(feed, id: id, price: 1))
    }

    /// How many times the log holds `text`.
    static func count(_ text: String, in daemon: DaemonProcess) -> Int {
        daemon.log.components(separatedBy: text).count - 1
    }

    /// Waits (at most 10 s) until `text` is in the log at least `times` times: the log comes
    /// through a pipe, and may trail the reply that followed it. The caller then checks the
    /// exact count.
    static func awaitLog(_ text: String, times: Int, in daemon: DaemonProcess) throws {
        try waitUntil("\(times) × \"\(text)\" in the log", seconds: 10) { count(text, in: daemon) >= times }
    }

    @Test(
        "a reload that raises a limit and finds a new plugin applies both in every loop; the file is read once",
        .timeLimit(.minutes(2)))
    func reloadAppliesInEveryLoop() throws {
        #expect(Set(Self.feeds.map { EngineLoopSlotIndex.of($0, loops: 3) }) == [0, 1, 2])
        let directory = try TemporaryDirectory("rowcast-config")
        let config = directory.path + "/rowcastd.yaml"
        try ServiceEndToEndTests.write("limits:\n  max_items_per_feed: 2\n", to: config)
        let daemon = try Self.daemon(config: config)
        let peer = try RawPeer(daemon)
        for feed in Self.feeds {
            // An item no plugin renders yet, one that fills the feed, and one past the limit.
            let waiting = try peer.request([
                "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.advertising("ad1"),
            ])
            #expect(waiting["warning"]?["code"] == "unknown_type", "\(waiting)")
            #expect(try Self.upsert(peer, feed, "p1")["ok"] == true)
            let refused = try Self.upsert(peer, feed, "p2")
            #expect(refused["error"]?["code"] == "limit_exceeded", "\(feed): \(refused)")
        }

        try FileManager.default.copyItem(
            atPath: try BuildProducts.path("librowcast-advertising.so"),
            toPath: daemon.pluginDirectory.url.appendingPathComponent("librowcast-advertising.so").path)
        try ServiceEndToEndTests.write(
            "limits:\n  max_items_per_feed: 4\n  publish_high_water_mark: 5000\n", to: config)
        let reload = try peer.request(["op": "reload", "req": "r1"])
        #expect(reload["ok"] == true, "\(reload)")
        #expect(reload["req"] == "r1")
        #expect(reload["applied"] == ["limits.max_items_per_feed"], "\(reload)")
        #expect(reload["restartRequired"] == ["limits.publish_high_water_mark"], "\(reload)")
        #expect(reload["loaded"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["advertising"], "\(reload)")
        #expect(reload["refusedInSomeLoops"] == [], "\(reload)")
        // Every loop rendered its waiting item: the merged reply names the feeds of all three.
        #expect(
            reload["rerendered"]?.arrayValue?.compactMap { $0["feed"]?.stringValue } == Self.feeds.sorted(),
            "\(reload)")
        // Each loop reloaded, from one reading of the file: the setting only a restart applies
        // is named once, not once per loop.
        try Self.awaitLog("reloading configuration and plugins", times: 3, in: daemon)
        try Self.awaitLog("this setting changed but only a restart applies it", times: 1, in: daemon)
        #expect(Self.count("reloading configuration and plugins", in: daemon) == 3)
        #expect(Self.count("this setting changed but only a restart applies it", in: daemon) == 1, "\(daemon.log)")

        for feed in Self.feeds {
            #expect(try Self.upsert(peer, feed, "p2")["ok"] == true, "\(feed)")
            #expect(try Self.upsert(peer, feed, "p3")["ok"] == true, "\(feed)")
            let refused = try Self.upsert(peer, feed, "p4")
            #expect(refused["error"]?["code"] == "limit_exceeded", "\(feed): \(refused)")
            let snapshot = try peer.request(["op": "snapshot", "feed": .string(feed)])
            #expect(PostgreSQLStoreEndToEndTests.rowIDs(snapshot).contains("ad1"), "\(feed): \(snapshot)")
        }
        let status = try peer.request(["op": "status"])
        #expect(status["limits"]?["max_items_per_feed"] == 4)
        // Two plugins in each loop's hosts.
        #expect(status["pluginHosts"]?.arrayValue?.count == 3 * 2, "\(status["pluginHosts"] ?? .null)")
    }

    @Test(
        "a configuration file made invalid fails the reload once, with one error, and every loop keeps the running settings",
        .timeLimit(.minutes(2)))
    func invalidFileFailsOnce() throws {
        let directory = try TemporaryDirectory("rowcast-config")
        let config = directory.path + "/rowcastd.yaml"
        try ServiceEndToEndTests.write("limits:\n  max_items_per_feed: 2\n", to: config)
        let daemon = try Self.daemon(config: config)
        let peer = try RawPeer(daemon)
        for feed in Self.feeds {
            for id in ["p1", "p2"] { #expect(try Self.upsert(peer, feed, id)["ok"] == true) }
        }

        try ServiceEndToEndTests.write("limits:\n  max_items_per_feed: lots\n", to: config)
        let reply = try peer.requestText(#"{"op":"reload","req":5}"#)
        let failed = try JSONParser.parse(reply)
        #expect(failed["ok"] == false, "\(reply)")
        #expect(failed["error"]?["code"] == "reload_failed", "\(reply)")
        let message = failed["error"]?["message"]?.stringValue ?? ""
        #expect(message.hasPrefix("the configuration is not valid: "), "\(message)")
        #expect(message.contains("max_items_per_feed"), "\(message)")
        #expect(failed["req"] == 5)
        // One error in the reply, one in the log, though three loops reloaded.
        #expect(reply.components(separatedBy: "reload_failed").count - 1 == 1, "\(reply)")
        try Self.awaitLog("reloading configuration and plugins", times: 3, in: daemon)
        try Self.awaitLog("reload failed; keeping the running configuration", times: 1, in: daemon)
        #expect(Self.count("reloading configuration and plugins", in: daemon) == 3)
        #expect(Self.count("reload failed; keeping the running configuration", in: daemon) == 1, "\(daemon.log)")

        for feed in Self.feeds {
            let refused = try Self.upsert(peer, feed, "p3")
            #expect(refused["error"]?["code"] == "limit_exceeded", "\(feed): \(refused)")
            #expect(try Self.upsert(peer, feed, "p1")["ok"] == true, "\(feed)")
        }

        // Fixed and reloaded by SIGHUP, which the group passes on: every loop takes the new limit.
        try ServiceEndToEndTests.write("limits:\n  max_items_per_feed: 3\n", to: config)
        daemon.signal(SIGHUP)
        try waitUntil("every loop reloaded after SIGHUP", seconds: 30) {
            Self.count("reloading configuration and plugins", in: daemon) == 6
        }
        for feed in Self.feeds {
            try waitUntil("\(feed) takes a third item", seconds: 30) {
                try Self.upsert(peer, feed, "p3")["ok"] == true
            }
            let refused = try Self.upsert(peer, feed, "p4")
            #expect(refused["error"]?["code"] == "limit_exceeded", "\(feed): \(refused)")
        }
        #expect(Self.count("reload failed", in: daemon) == 1, "\(daemon.log)")
    }

    @Test(
        "with CURVE, a client key added before a reload is admitted for feeds of every loop, requests and subscriptions",
        .timeLimit(.minutes(2)))
    func curveKeyAddedOnEveryLoop() throws {
        typealias Curve = CurveEndToEndTests
        let feeds = CurveEngineThreadsEndToEndTests.feeds
        let clients = try TemporaryDirectory("rowcast-clients")
        let admin = try Curve.client("admin", in: clients, allow: ["all *"])
        let newcomer = try Curve.client("newcomer", in: nil)
        let daemon = try Curve.daemon(clients: clients, threads: 3)
        defer { daemon.stop() }
        let adminPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, admin))
        let early = try RawPeer(daemon, curve: try Curve.keys(daemon, newcomer))
        try early.dealer.setOption(.receiveTimeout, 1500)
        #expect(throws: TestFailure.self) { _ = try early.request(["op": "status"]) }

        try "public-key = \"\(newcomer.publicKey)\"\nallow = \"publish,read \(feeds.joined(separator: " "))\"\n"
            .write(toFile: clients.path + "/newcomer.key", atomically: true, encoding: .utf8)
        // A key file others can write is refused, and named once: the keys are read once.
        _ = try Curve.client("eve", in: clients)
        #expect(chmod(clients.path + "/eve.key", 0o666) == 0)
        let reload = try adminPeer.request(["op": "reload"])
        #expect(reload["ok"] == true, "\(reload)")
        #expect(reload["curve"]?["clients"] == ["admin", "newcomer"], "\(reload)")
        #expect(reload["curve"]?["keyProblems"]?.arrayValue?.count == 1, "\(reload)")
        try Self.awaitLog("refused client key file", times: 1, in: daemon)
        #expect(Self.count("refused client key file", in: daemon) == 1, "\(daemon.log)")

        let admitted = try RawPeer(daemon, curve: try Curve.keys(daemon, newcomer))
        try admitted.subscribe(feeds.map { Array("rows.\($0)".utf8) + [0] })
        var pending: [String: JSONValue] = [:]
        for feed in feeds {
            let ack = try admitted.request([
                "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("n1"),
            ])
            #expect(ack["ok"] == true, "\(feed): \(ack)")
            #expect(try admitted.request(["op": "snapshot", "feed": .string(feed)])["ok"] == true, "\(feed)")
            pending["rows.\(feed)"] = ack["seq"] ?? .null
        }
        // The proxy passed the newcomer's subscriptions on: it receives every loop's deltas.
        _ = try admitted.receive { topic, body in
            if pending[topic] == body["seq"] { pending[topic] = nil }
            return pending.isEmpty
        }
        let status = try adminPeer.request(["op": "status"])
        #expect(status["curve"]?["clients"] == ["admin", "newcomer"])
        #expect((status["curve"]?["refusedSubscriptions"]?.numberValue ?? -1) == 0, "\(status["curve"] ?? .null)")
    }
}
