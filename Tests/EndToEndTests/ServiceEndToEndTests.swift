import Foundation
@testable import RowCastDaemon
import RowCastJSON
import Testing
import ZeroMQ

/// rowcastd as a service: reload of configuration and plugins without dropping a subscriber,
/// drain on SIGTERM, exit at once on a second signal.
@Suite(.serialized)
struct ServiceEndToEndTests {
    static func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test("every setting the configuration schema gives an option is accepted by rowcastd, with its default value")
    func everySchemaOptionIsAccepted() throws {
        let defaults = DaemonConfiguration()
        // --check-config reads the gateway's token key files: give it usable ones.
        let keys = try TemporaryDirectory("rowcast-token-keys")
        let keyFiles = [
            "http_token_secret_files": (keys.path + "/gateway.secret", "0123456789abcdef0123456789abcdef"),
            "http_token_public_key_files": (
                keys.path + "/signin-es256.pub",
                """
                -----BEGIN PUBLIC KEY-----
                MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEH9kU0tVA9FBe3OG4fYKz4tKHYfUI
                U39V0Z/Av/bkHYquUbaHv1nl3AKCSqyneLPRTNlVWBopEYVUvyf+A0hruw==
                -----END PUBLIC KEY-----

                """
            ),
        ]
        for (path, text) in keyFiles.values { try Self.write(text, to: path) }
        for setting in ConfigurationSchema.settings {
            guard let flag = setting.flag, !["--ingest", "--control", "--publish"].contains(flag) else { continue }
            let values: [String]
            switch setting.read(defaults) {
            case .text(let text): values = [text]
            case .integer(let number): values = [String(number)]
            case .texts:
                switch setting.kind {
                case .hostNames: values = ["feeds.example.com"]
                case .origins: values = ["https://app.example.com"]
                case .pluginNames: values = ["maps"]
                default: values = [keyFiles[setting.key]?.0 ?? NSTemporaryDirectory()]
                }
            case .boolean: values = []
            }
            let run = try runRowcastdToExit(["--check-config", flag] + values)
            #expect(
                run.status == 0,
                "rowcastd --check-config \(flag) \(values.joined(separator: " ")): status \(run.status): \(run.stderr)")
        }
    }

    @Test(
        "a reload request re-reads the file: new plugins render waiting items, live settings apply, others need a restart"
    )
    func reloadRequest() throws {
        let directory = try TemporaryDirectory("rowcast-config")
        let config = directory.path + "/rowcastd.yaml"
        try Self.write("log_level: info\n", to: config)
        let daemon = try DaemonProcess(plugins: ["librowcast-product.so"], extraArguments: ["--config", config])
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("rows.cars".utf8) + [0]])
        #expect(
            try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.advertising("ad1")])[
                "warning"]?["code"] == "unknown_type")

        try FileManager.default.copyItem(
            atPath: try BuildProducts.path("librowcast-advertising.so"),
            toPath: daemon.pluginDirectory.path + "/librowcast-advertising.so")
        let first = try peer.request(["op": "reload"])
        #expect(first["ok"] == true)
        #expect(first["config"] == .string(config))
        #expect(first["loaded"]?.arrayValue?.map { $0["name"] } == ["advertising"])
        #expect(first["applied"] == [])
        let delta = try peer.delta(feed: "cars", seq: 1)
        #expect(
            delta["rows"]?["inserted"]?.arrayValue?.first?["id"] == "ad1"
                || delta["sections"]?["inserted"]?.arrayValue?.first?["rows"]?.arrayValue?.first?["id"] == "ad1")

        // The log level applies at once; a high-water mark needs a restart.
        let bad: JSONValue = ["op": "upsert", "feed": "cars"]
        _ = try peer.request(bad)
        #expect(!daemon.log.contains("refused request"))
        try Self.write("log_level: debug\nlimits:\n  publish_high_water_mark: 5\n", to: config)
        let second = try peer.request(["op": "reload"])
        #expect(second["ok"] == true)
        #expect(second["applied"] == ["log_level"])
        #expect(second["restartRequired"] == ["limits.publish_high_water_mark"])
        #expect(second["loaded"] == [])
        _ = try peer.request(bad)
        #expect(eventually { daemon.log.contains("refused request") })
        #expect(daemon.log.contains("key=limits.publish_high_water_mark"))
    }

    @Test(
        "a reload with a bad file keeps the running configuration and says why; a bad plugin file is refused without blocking the reload"
    )
    func failedReloadKeepsRunning() throws {
        let directory = try TemporaryDirectory("rowcast-config")
        let config = directory.path + "/rowcastd.yaml"
        try Self.write("heartbeat_ms: 200\n", to: config)
        let daemon = try DaemonProcess(plugins: ["librowcast-product.so"], extraArguments: ["--config", config])
        let peer = try RawPeer(daemon)

        try Self.write("heartbeat_ms: 200\nlog_level: loud\n", to: config)
        let badConfig = try peer.request(["op": "reload"])
        #expect(badConfig["ok"] == false)
        #expect(badConfig["error"]?["code"] == "reload_failed")
        let message = badConfig["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("\(config):2: log_level: must be one of trace, debug, info"))

        try Self.write("heartbeat_ms: 200\n", to: config)
        try Self.write("not a shared library", to: daemon.pluginDirectory.path + "/librowcast-broken.so")
        let badPlugin = try peer.request(["op": "reload"])
        #expect(badPlugin["ok"] == true)
        #expect(
            badPlugin["refusals"]?.arrayValue?.first?["file"]?.stringValue?.hasSuffix("librowcast-broken.so") == true)
        let plugins = try peer.request(["op": "plugins"])
        #expect(plugins["refusals"]?.arrayValue?.first?["code"] == "open_failed")
        #expect(plugins["types"]?["product"]?["plugin"] == "product")
        #expect(
            try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1")])["ok"] == true)

        try Self.write("heartbeat_ms: 200\nlog_level: loud\n", to: config)
        daemon.signal(SIGHUP)
        #expect(eventually { daemon.log.contains("reload failed; keeping the running configuration and plugins") })
        try Self.write("heartbeat_ms: 200\n", to: config)
        try FileManager.default.removeItem(atPath: daemon.pluginDirectory.path + "/librowcast-broken.so")
        let clean = try peer.request(["op": "reload"])
        #expect(clean["ok"] == true)
        #expect(clean["refusals"] == [])
    }

    @Test("SIGTERM in the middle of acked publishing: exit 0, and every acked item was published")
    func drainOnSigterm() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("rows.bulk".utf8) + [0]])
        let acked = try Self.publishUntilStopped(
            daemon: daemon, peer: peer, feed: "bulk", total: 20_000, signalAfter: 300)
        #expect(daemon.waitForExit(timeout: 30) == 0)
        #expect(acked.count >= 300)
        let published = Self.publishedIDs(peer.subscriber)
        let missing = acked.subtracting(published)
        #expect(missing.isEmpty, "acked but never published: \(missing.sorted().prefix(10))")
        #expect(daemon.log.contains("rowcastd stopping"))
    }

    @Test("every acked item is there after a restart on the same state directory")
    func ackedItemsSurviveRestart() throws {
        let state = try TemporaryDirectory("rowcast-state")
        let daemon = try DaemonProcess(stateDirectory: state)
        let peer = try RawPeer(daemon)
        let acked = try Self.publishUntilStopped(
            daemon: daemon, peer: peer, feed: "bulk", total: 20_000, signalAfter: 300)
        #expect(daemon.waitForExit(timeout: 30) == 0)
        let restarted = try DaemonProcess(pluginDirectory: daemon.pluginDirectory, stateDirectory: state)
        let snapshot = try RawPeer(restarted).request(["op": "snapshot", "feed": "bulk"])
        let ids = Set(
            (snapshot["sections"]?.arrayValue ?? []).flatMap { $0["rows"]?.arrayValue ?? [] }.compactMap {
                $0["id"]?.stringValue
            })
        #expect(acked.subtracting(ids).isEmpty)
    }

    @Test("a second SIGTERM during the drain exits at once with status 1")
    func secondSignalExitsAtOnce() throws {
        // Rendering a 900 kB item took more than the default 1 s on a loaded 2-core machine.
        let daemon = try DaemonProcess(extraArguments: ["--linger-ms", "60000", "--plugin-timeout-ms", "10000"])
        let peer = try RawPeer(daemon)
        // A subscriber that takes one message and then stops reading: the daemon's queue to it
        // cannot drain, so closing waits for the (long) linger.
        let stuck = try Socket(context: peer.context, type: .sub)
        defer { stuck.close() }
        try stuck.setOption(.linger, 0)
        try stuck.setOption(.receiveHighWaterMark, 1)
        try stuck.setOption(.receiveTimeout, 5000)
        try stuck.subscribe(Array("rows.big".utf8) + [0])
        try stuck.subscribe(Array("heartbeat".utf8) + [0])
        try stuck.connect(daemon.publish)
        guard try stuck.receiveMultipart() != nil else {
            throw TestFailure("the subscriber got no heartbeat within 5 s")
        }
        try stuck.unsubscribe(Array("heartbeat".utf8) + [0])
        let name = String(repeating: "x", count: 900_000)
        for index in 0..<40 {
            let ack = try peer.request([
                "op": "upsert", "feed": "big", "item": DaemonEndToEndTests.product("big\(index)", name: name),
            ])
            #expect(ack["ok"] == true, "\(ack)")
        }
        daemon.signal(SIGTERM)
        #expect(eventually { daemon.log.contains("rowcastd stopping") })
        #expect(daemon.process.isRunning, "the drain finished although the subscriber does not read")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 20) == 1)
        #expect(daemon.log.contains("again: exiting at once"))
    }

    /// Pipelines upserts of `feed` over the control socket, sends SIGTERM after `signalAfter`
    /// acks, and keeps reading replies until none come; the ids that were acked.
    static func publishUntilStopped(
        daemon: DaemonProcess, peer: RawPeer, feed: String, total: Int, signalAfter: Int
    ) throws -> Set<String> {
        try peer.dealer.setOption(.receiveTimeout, 3000)
        try peer.dealer.setOption(.sendTimeout, 0)
        var acked = Set<String>()
        var sent = 0
        var signalled = false
        var sending = true
        while true {
            while sending && sent < total && sent - acked.count < 200 {
                let body: JSONValue = [
                    "op": "upsert", "feed": .string(feed), "req": .number(Double(sent)),
                    "item": DaemonEndToEndTests.product("i\(sent)"),
                ]
                do {
                    _ = try peer.dealer.send([[], body.serialized()])
                    sent += 1
                } catch {
                    sending = false  // the daemon closed, or stopped reading
                }
            }
            guard let frames = try? peer.dealer.receiveMultipart(), frames.count == 2 else { break }
            let reply = try JSONParser.parse(frames[1])
            if reply["ok"] == true, let req = reply["req"]?.numberValue { acked.insert("i\(Int(req))") }
            if !signalled && acked.count >= signalAfter {
                daemon.signal(SIGTERM)
                signalled = true
            }
            if sent == total && acked.count == total { break }
        }
        if !signalled { daemon.signal(SIGTERM) }
        return acked
    }

    /// The ids of every row inserted by the deltas `subscriber` receives until none comes
    /// for 3 s.
    static func publishedIDs(_ subscriber: Socket) -> Set<String> {
        try? subscriber.setOption(.receiveTimeout, 3000)
        var ids = Set<String>()
        while let frames = try? subscriber.receiveMultipart(), frames.count == 2,
            let delta = try? JSONParser.parse(frames[1])
        {
            for row in delta["rows"]?["inserted"]?.arrayValue ?? [] {
                if let id = row["id"]?.stringValue { ids.insert(id) }
            }
            for section in delta["sections"]?["inserted"]?.arrayValue ?? [] {
                for row in section["rows"]?.arrayValue ?? [] { if let id = row["id"]?.stringValue { ids.insert(id) } }
            }
        }
        return ids
    }
}

/// Polls `condition` every 20 ms for at most `timeout`; whether it became true.
func eventually(timeout: TimeInterval = 20, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return try condition()
}
