import Foundation
import RowCastJSON
import RowCastTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Rows are stored as rendered: a real rowcastd restarted over many stored rows calls no plugin
/// while it starts, and when one plugin changed while it was stopped, that plugin's rows are
/// rendered again in the background while the other feeds are served. Plugin calls are counted
/// with the plugin hosts' counters (`plugins` reply, `hosts[].rendered`), never timed.
@Suite(.serialized)
struct StoredRowsEndToEndTests {
    /// Items in the feed of the plugin that changes: enough that rendering them again takes
    /// many chunks (`Engine.staleChunkSize`, 128 each).
    static let changedItems = 20_000

    /// The second plugin: the fault fixture under another name and item type.
    static let otherType = "other"

    static func arguments() -> [String] {
        PluginFaultEndToEndTests.isolation(timeoutMilliseconds: 5000) + ["--max-message-bytes", String(4 << 20)]
    }

    /// `rendered` of the host of `plugin`.
    static func rendered(_ peer: RawPeer, _ plugin: String) throws -> Int {
        Int(try PluginFaultEndToEndTests.host(peer, plugin: plugin)?["rendered"]?.numberValue ?? -1)
    }

    /// The `v` member of every row of `feed`, counted.
    static func versions(_ peer: RawPeer, feed: String) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in PluginFaultEndToEndTests.rows(try peer.request(["op": "snapshot", "feed": .string(feed)])).values {
            counts[row["content"]?["v"]?.stringValue ?? "?", default: 0] += 1
        }
        return counts
    }

    @Test(
        "a restart over many stored rows calls no plugin; after one plugin changed, its rows are rendered again in the background while other feeds are served",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(4)))
    func restartCallsNoPlugin() throws {
        let plugins = try FaultPlugin.directory()
        try FaultPlugin.compile(
            to: plugins.url.appendingPathComponent("librowcast-other.so").path,
            defines: ["FAULT_NAME=\"other\"", "FAULT_TYPE=\"\(Self.otherType)\""])
        let state = try TemporaryDirectory("rowcast-state")
        let items: [JSONValue] = (0..<Self.changedItems).map {
            ["id": .string("a\($0)"), "type": .string(FaultPlugin.itemType)]
        }
        var epoch: JSONValue?
        do {
            let daemon = try DaemonProcess(
                pluginDirectory: plugins, stateDirectory: state, extraArguments: Self.arguments())
            defer { daemon.stop() }
            let peer = try RawPeer(daemon)
            let reset = try peer.request(["op": "reset", "feed": "a", "items": .array(items)])
            #expect(reset["ok"] == true, "\(reset)")
            epoch = reset["epoch"]
            for index in 0..<10 {
                let ack = try peer.request([
                    "op": "upsert", "feed": "b", "item": ["id": .string("b\(index)"), "type": .string(Self.otherType)],
                ])
                #expect(ack["ok"] == true, "\(ack)")
            }
            daemon.signal(SIGTERM)
            #expect(daemon.waitForExit(timeout: 30) == 0, "log:\n\(daemon.log)")
        }

        // No plugin changed: not one plugin call while starting, and every row is there.
        do {
            let daemon = try DaemonProcess(
                pluginDirectory: plugins, stateDirectory: state, extraArguments: Self.arguments())
            defer { daemon.stop() }
            let peer = try RawPeer(daemon)
            #expect(try Self.rendered(peer, "fault") == 0)
            #expect(try Self.rendered(peer, "other") == 0)
            #expect(try peer.request(["op": "status"])["staleRows"] == 0)
            #expect(try Self.versions(peer, feed: "a") == ["1": Self.changedItems])
            #expect(try Self.versions(peer, feed: "b") == ["1": 10])
            #expect(try Self.rendered(peer, "fault") == 0, "a snapshot rendered something")
            daemon.signal(SIGTERM)
            #expect(daemon.waitForExit(timeout: 30) == 0, "log:\n\(daemon.log)")
        }

        // The fault plugin changes while rowcastd is stopped (a new build, a new file).
        let builds = try TemporaryDirectory("rowcast-fault-builds")
        let changed = try FaultPlugin.compile(to: builds.path + "/v2.so", defines: ["FAULT_VERSION=\"2\""])
        let pluginFile = plugins.url.appendingPathComponent(FaultPlugin.fileName).path
        try FileManager.default.removeItem(atPath: pluginFile)
        try FileManager.default.copyItem(atPath: changed, toPath: pluginFile)

        let daemon = try DaemonProcess(
            pluginDirectory: plugins, stateDirectory: state, extraArguments: Self.arguments())
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        // Served at once, while feed a's rows wait to be rendered again: the other plugin's feed
        // takes an upsert (its host renders that one item), and feed a is served with its
        // stored rows, under its epoch.
        let ack = try peer.request([
            "op": "upsert", "feed": "b", "item": ["id": "b-new", "type": .string(Self.otherType)],
        ])
        #expect(ack["ok"] == true, "\(ack)")
        let status = try peer.request(["op": "status"])
        let stale = Int(status["staleRows"]?.numberValue ?? -1)
        #expect(stale > 0, "feed a was rendered again before the other feed was served: \(status)")
        #expect(try Self.rendered(peer, "fault") < Self.changedItems)
        #expect(try peer.request(["op": "snapshot", "feed": "a"])["epoch"] == epoch)
        // Then every row of feed a is rendered again by the new build, and nothing else is.
        #expect(
            try eventually(timeout: 120) { try peer.request(["op": "status"])["staleRows"] == 0 }, "log:\n\(daemon.log)"
        )
        #expect(try Self.versions(peer, feed: "a") == ["2": Self.changedItems])
        #expect(try Self.rendered(peer, "fault") == Self.changedItems)
        #expect(try Self.rendered(peer, "other") == 1)
        #expect(try peer.request(["op": "snapshot", "feed": "a"])["epoch"] == epoch)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 30) == 0, "log:\n\(daemon.log)")

        // The new build was recorded: the next start calls no plugin again.
        let last = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state, extraArguments: Self.arguments())
        defer { last.stop() }
        let lastPeer = try RawPeer(last)
        #expect(try Self.rendered(lastPeer, "fault") == 0)
        #expect(try lastPeer.request(["op": "status"])["staleRows"] == 0)
        #expect(try Self.versions(lastPeer, feed: "a") == ["2": Self.changedItems])
    }
}
