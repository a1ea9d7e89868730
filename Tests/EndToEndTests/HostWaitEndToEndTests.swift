import Foundation
import RowCastJSON
import Testing

/// While a plugin host renders a batch, rowcastd still sends what earlier batches committed,
/// and starts a commit that `commit_interval_us` held back once it is due: a batch's deltas
/// never wait for the next batch's round trip (`Daemon+RenderWait.swift`).
///
/// The fixture's `gate` item renders only once the test creates a file, and the test creates it
/// only after the earlier item's delta arrived: if that delta waited for the render, it would
/// not arrive within RawPeer's bound and the test fails (the gate gives up after 30 s).
@Suite(.serialized)
struct HostWaitEndToEndTests {
    @Test(
        "an item's delta goes out while the next batch is still being rendered by its plugin host",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(3)))
    func deltaDuringRender() throws {
        let plugins = try FaultPlugin.directory()
        let gates = try TemporaryDirectory("rowcast-gate")
        // Plugin hosts run as an unprivileged user when the tests run as root.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: gates.path)
        let gate = gates.path + "/open"
        // The gate's render may last as long as the test waits; commits of pushed items are
        // held back until 100 ms (the most allowed) after the previous one started.
        let daemon = try DaemonProcess(
            pluginDirectory: plugins,
            extraArguments: [
                "--plugin-isolation", "process", "--plugin-timeout-ms", "60000", "--commit-interval-us", "100000",
            ])
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("rows.g".utf8) + [0]])

        // Acked, so committed at once: the pacing of the next pushed item starts from here.
        #expect(try peer.request(PluginFaultEndToEndTests.upsert("g", "first"))["ok"] == true)
        _ = try peer.delta(feed: "g", seq: 1)

        // Pushed, so held back up to 100 ms; then the gate, in a batch of its own (the loop
        // reads the first item within the pause), whose render is under way when that commit
        // falls due. (A gate read after that would find the item published already.)
        try peer.pushRaw(
            JSONValue.object(["op": "upsert", "feed": "g", "item": PluginFaultEndToEndTests.item("early")]).serialized()
        )
        Thread.sleep(forTimeInterval: 0.03)
        var gated = PluginFaultEndToEndTests.item("gate").objectValue!
        gated["data"] = ["gate": .string(gate)]
        try peer.pushRaw(JSONValue.object(["op": "upsert", "feed": "g", "item": .object(gated)]).serialized())

        let early = try peer.delta(feed: "g", seq: 2)
        #expect(early["seq"] == 2, "\(early)")
        #expect(String(decoding: early.serialized(), as: UTF8.self).contains("\"early\""), "\(early)")
        #expect(!FileManager.default.fileExists(atPath: gate))

        #expect(FileManager.default.createFile(atPath: gate, contents: Data()))
        let late = try peer.delta(feed: "g", seq: 3)
        #expect(String(decoding: late.serialized(), as: UTF8.self).contains("\"gate\""), "\(late)")
        #expect(daemon.process.isRunning, "rowcastd died; log:\n\(daemon.log)")
    }
}
