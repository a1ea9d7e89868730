import Foundation
import RowCastJSON
import RowCastPluginHosting
import Testing

/// A plugin that crashes or hangs on item after item is paused, and costs its own items only:
/// a real rowcastd with the C fixture `fault_plugin.c` twice (the faulty plugin and a calm
/// one), a flood of poison items to one and acked upserts to the other at the same time.
@Suite(.serialized)
struct PluginCrashLoopEndToEndTests {
    @Test(
        "100 crashing and 20 hanging items pipelined: three faults pause the plugin, the rest are refused plugin_unavailable, the calm plugin's feed is served throughout, and SIGTERM drains",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(3)))
    func poisonFloodPausesItsPluginOnly() throws {
        let plugins = try FaultPlugin.directory()
        try FaultPlugin.compile(
            to: plugins.url.appendingPathComponent("librowcast-calm.so").path,
            defines: [#"FAULT_NAME="calm""#, #"FAULT_TYPE="calm""#])
        let daemon = try DaemonProcess(
            pluginDirectory: plugins,
            extraArguments: PluginFaultEndToEndTests.isolation(timeoutMilliseconds: 1000))
        defer { daemon.stop() }
        let poison = try RawPeer(daemon)
        let calm = try RawPeer(daemon)

        // Every poison request is sent before any answer is read.
        let poisonIDs = Array(repeating: "segv", count: 100) + Array(repeating: "hang", count: 20)
        for (index, id) in poisonIDs.enumerated() {
            let request: JSONValue = [
                "op": "upsert", "feed": .string("poison-\(index % 10)"), "req": .number(Double(index + 1)),
                "item": PluginFaultEndToEndTests.item(id),
            ]
            _ = try poison.dealer.send([[], request.serialized()])
        }
        // Meanwhile the calm plugin's feed takes acked upserts, one at a time.
        for index in 0..<50 {
            let ack = try calm.request([
                "op": "upsert", "feed": "calm", "item": ["id": .string("c\(index)"), "type": "calm"],
            ])
            #expect(ack["ok"] == true, "calm upsert \(index): \(ack)")
        }
        var codes: [String: Int] = [:]
        for _ in poisonIDs {
            guard let frames = try poison.dealer.receiveMultipart(), frames.count == 2 else {
                throw TestFailure("a poison request got no answer within \(RawPeer.timeoutText)")
            }
            let reply = try JSONParser.parse(frames[1])
            codes[reply["error"]?["code"]?.stringValue ?? "ok", default: 0] += 1
        }
        let faults = (codes["plugin_crashed"] ?? 0) + (codes["plugin_timeout"] ?? 0)
        // Three crashes in a row pause the plugin for a second; only a request read after that
        // second would reach a host again (and, crashing, pause it for two).
        #expect(faults >= 3 && faults <= 5, "\(codes)")
        #expect((codes["plugin_unavailable"] ?? 0) == poisonIDs.count - faults, "\(codes)")

        let hosts = try calm.request(["op": "plugins"])["hosts"]?.arrayValue ?? []
        let byPlugin = Dictionary(
            uniqueKeysWithValues: hosts.compactMap { h in h["plugin"]?.stringValue.map { ($0, h) } })
        #expect(byPlugin["fault"]?["faults"]?.numberValue == Double(faults))
        #expect(
            (byPlugin["fault"]?["restarts"]?.numberValue ?? 99) < Double(faults), "the pausing fault starts no host")
        #expect(byPlugin["calm"]?["faults"]?.numberValue == 0)
        #expect(byPlugin["calm"]?["restarts"]?.numberValue == 0)
        #expect(byPlugin["calm"]?["rendered"]?.numberValue == 50)
        // A refused item was neither stored nor quarantined; a crashed one was both.
        let quarantined = try calm.request(["op": "quarantine"])["items"]?.arrayValue ?? []
        #expect(quarantined.count <= faults && !quarantined.isEmpty)

        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 20) == 0, "\(daemon.log)")
        #expect(daemon.log.contains("plugin paused after faults in a row"), "\(daemon.log)")
    }

    @Test(
        "20 hanging items pipelined ahead of another plugin's acked upserts: every upsert is acked before the first hanging item's answer, and SIGTERM drains the hanging ones",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(3)))
    func hangingItemsCostTheirOwnFeedOnly() throws {
        let plugins = try FaultPlugin.directory()
        try FaultPlugin.compile(
            to: plugins.url.appendingPathComponent("librowcast-calm.so").path,
            defines: [#"FAULT_NAME="calm""#, #"FAULT_TYPE="calm""#])
        let daemon = try DaemonProcess(
            pluginDirectory: plugins,
            extraArguments: PluginFaultEndToEndTests.isolation(timeoutMilliseconds: 3000))
        defer { daemon.stop() }
        let poison = try RawPeer(daemon)
        let calm = try RawPeer(daemon)

        for index in 0..<20 {
            let request: JSONValue = [
                "op": "upsert", "feed": .string("hang-\(index % 4)"), "req": .number(Double(index + 1)),
                "item": PluginFaultEndToEndTests.item("hang"),
            ]
            _ = try poison.dealer.send([[], request.serialized()])
        }
        // The hanging items were sent first; the calm feed's upserts are acked one at a time
        // while the first of them hangs its host (a call may take 3 s).
        for index in 0..<50 {
            let ack = try calm.request([
                "op": "upsert", "feed": "calm", "item": ["id": .string("c\(index)"), "type": "calm"],
            ])
            #expect(ack["ok"] == true, "calm upsert \(index): \(ack)")
        }
        let early = try poison.dealer.receiveMultipart(dontWait: true)
        #expect(
            early == nil, "a hanging item was answered before the calm feed's 50 acks: \(String(describing: early))")
        let snapshot = try calm.request(["op": "snapshot", "feed": "calm"])
        #expect(snapshot["ok"] == true)

        // SIGTERM while the hanging items are still carried: they are answered, then it exits.
        // Three calls time out before the plugin is paused, so the answers take up to 9 s.
        daemon.signal(SIGTERM)
        var codes: [String: Int] = [:]
        let deadline = ContinuousClock.now + .seconds(60)
        for _ in 0..<20 {
            var frames: [[UInt8]]?
            while frames == nil, ContinuousClock.now < deadline { frames = try poison.dealer.receiveMultipart() }
            guard let frames, frames.count == 2 else { throw TestFailure("a hanging item got no answer within 60 s") }
            let reply = try JSONParser.parse(frames[1])
            codes[reply["error"]?["code"]?.stringValue ?? "ok", default: 0] += 1
        }
        #expect((codes["plugin_timeout"] ?? 0) >= 1, "\(codes)")
        #expect((codes["plugin_timeout"] ?? 0) + (codes["plugin_unavailable"] ?? 0) == 20, "\(codes)")
        #expect(daemon.waitForExit(timeout: 30) == 0, "\(daemon.log)")
    }

    @Test(
        "a host restarted after a crash is started off the loop: another plugin's feed is acked while the new host loads",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(3)))
    func restartIsOffTheLoop() throws {
        let plugins = try TemporaryDirectory("rowcast-plugins")
        // Every start of the faulty plugin's host takes 3 s; the calm plugin starts at once.
        try FaultPlugin.compile(
            to: plugins.url.appendingPathComponent("librowcast-slow.so").path, defines: ["FAULT_SLOW_START_MS=3000"])
        try FaultPlugin.compile(
            to: plugins.url.appendingPathComponent("librowcast-calm.so").path,
            defines: [#"FAULT_NAME="calm""#, #"FAULT_TYPE="calm""#])
        let daemon = try DaemonProcess(
            pluginDirectory: plugins, extraArguments: PluginFaultEndToEndTests.isolation(timeoutMilliseconds: 5000))
        defer { daemon.stop() }
        let faulty = try RawPeer(daemon)
        let calm = try RawPeer(daemon)

        // One batch: a crash, then an item that needs the restarted host.
        for (index, id) in ["segv", "after-crash"].enumerated() {
            let request: JSONValue = [
                "op": "upsert", "feed": "faulty", "req": .number(Double(index + 1)),
                "item": PluginFaultEndToEndTests.item(id),
            ]
            _ = try faulty.dealer.send([[], request.serialized()])
        }
        guard let crashed = try faulty.dealer.receiveMultipart(), crashed.count == 2 else {
            throw TestFailure("the crashing item got no answer within \(RawPeer.timeoutText)")
        }
        #expect(try JSONParser.parse(crashed[1])["error"]?["code"] == "plugin_crashed")
        for index in 0..<50 {
            let ack = try calm.request([
                "op": "upsert", "feed": "calm", "item": ["id": .string("c\(index)"), "type": "calm"],
            ])
            #expect(ack["ok"] == true, "calm upsert \(index): \(ack)")
        }
        let early = try faulty.dealer.receiveMultipart(dontWait: true)
        #expect(early == nil, "the item after the crash was answered before the calm feed's acks")
        var frames: [[UInt8]]?
        let deadline = ContinuousClock.now + .seconds(60)
        while frames == nil, ContinuousClock.now < deadline { frames = try faulty.dealer.receiveMultipart() }
        let reply = try JSONParser.parse(try #require(frames?.last))
        #expect(reply["ok"] == true, "\(reply)")
    }

    @Test(
        "a host hanging in a call dies with rowcastd killed by SIGKILL (its parent-death signal survives the switch to the plugin user)",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)))
    func hangingHostDiesWithRowcastd() throws {
        let plugins = try FaultPlugin.directory()
        let daemon = try DaemonProcess(
            pluginDirectory: plugins, extraArguments: PluginFaultEndToEndTests.isolation(timeoutMilliseconds: 60_000))
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        let hosts = try peer.request(["op": "plugins"])["hosts"]?.arrayValue ?? []
        let pid = try #require(hosts.first?["pid"]?.numberValue.map { pid_t($0) })
        let request: JSONValue = ["op": "upsert", "feed": "f", "req": 1, "item": PluginFaultEndToEndTests.item("hang")]
        _ = try peer.dealer.send([[], request.serialized()])
        Thread.sleep(forTimeInterval: 0.5)  // the host is in the call
        daemon.signal(SIGKILL)
        _ = daemon.waitForExit(timeout: 10)
        let deadline = ContinuousClock.now + .seconds(10)
        while kill(pid, 0) == 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(kill(pid, 0) != 0, "host \(pid) outlived rowcastd")
        // Bounded even when the fix regresses: a host left spinning is killed here.
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
    }
}
