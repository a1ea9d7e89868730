import Foundation
import RowCastJSON
import RowCastTesting
import Testing

/// A quarantine reason with U+0000 in it, from a real C plugin (the fault fixture built with
/// `FAULT_REFUSE_WHEN`: once a file exists, every new host of it sends a forged refusal whose
/// reason holds U+0000 ahead of its hello). rowcastd stores the reason with U+FFFD in its place,
/// so PostgreSQL takes the commit and SQLite keeps the whole text: the entry is the same after
/// a restart.
@Suite(.serialized)
struct QuarantineReasonNULEndToEndTests {
    /// The reason as rowcastd stores and reports it.
    static let storedReason = "refused by the fault fixture:\u{FFFD}after the NUL"

    /// The quarantine entry of `id` in `feed`, or nil.
    static func entry(_ peer: RawPeer, feed: String, id: String) throws -> JSONValue? {
        let reply = try peer.request(["op": "quarantine", "feed": .string(feed)])
        #expect(reply["ok"] == true, "\(reply)")
        return reply["items"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }

    @Test(
        "a plugin host's reason with U+0000 is quarantined with U+FFFD instead, and the entry is intact after a restart",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(3)),
        arguments: PostgreSQLTestServer.testsEnabled ? ["sqlite", "postgresql"] : ["sqlite"])
    func reasonWithNULSurvivesRestart(store: String) throws {
        let storeArguments = store == "postgresql" ? ["--store", try PostgreSQLTestServer.shared().makeDatabase()] : []
        let plugins = try TemporaryDirectory("rowcast-fault-plugins")
        let marker = plugins.path + "/refuse-from-now-on"
        try FaultPlugin.compile(
            to: plugins.path + "/" + FaultPlugin.fileName, defines: ["FAULT_REFUSE_WHEN=\"\(marker)\""])
        let state = try TemporaryDirectory("rowcast-state")
        let arguments = PluginFaultEndToEndTests.isolation() + storeArguments
        let feed = "nul"
        var before: JSONValue?
        do {
            let daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state, extraArguments: arguments)
            defer { daemon.stop() }
            let peer = try RawPeer(daemon)
            #expect(try peer.request(PluginFaultEndToEndTests.upsert(feed, "good"))["ok"] == true)
            // From now on every new host refuses; the crash makes the next item need one.
            #expect(FileManager.default.createFile(atPath: marker, contents: Data()))
            let crashed = try peer.request(PluginFaultEndToEndTests.upsert(feed, "segv"))
            #expect(crashed["error"]?["code"] == "plugin_crashed", "\(crashed)")
            let refused = try peer.request(PluginFaultEndToEndTests.upsert(feed, "victim"))
            #expect(refused["ok"] == false, "\(refused)")
            #expect(refused["error"]?["code"] == "plugin_crashed", "\(refused)")
            before = try Self.entry(peer, feed: feed, id: "victim")
            #expect(before?["message"]?.stringValue?.contains(Self.storedReason) == true, "\(before ?? .none)")
            #expect(before?["message"]?.stringValue?.contains("\u{0}") == false, "\(before ?? .none)")
            #expect(try Self.entry(peer, feed: feed, id: "segv")?["code"] == "plugin_crashed")
            // The commit went through: the good item is still served, and a new one is acked.
            #expect(try PluginFaultEndToEndTests.rows(peer, feed: feed)["good"] != nil)
        }
        // The plugin loads again (a host that refuses it at the start would leave its rows out).
        try FileManager.default.removeItem(atPath: marker)
        let daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state, extraArguments: arguments)
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        let after = try Self.entry(peer, feed: feed, id: "victim")
        #expect(after != nil, "the entry is gone after the restart")
        #expect(after == before, "before: \(before ?? .none)\nafter: \(after ?? .none)")
        #expect(!daemon.log.contains("damaged"), "\(daemon.log)")
        #expect(try PluginFaultEndToEndTests.rows(peer, feed: feed)["good"] != nil)
    }
}
