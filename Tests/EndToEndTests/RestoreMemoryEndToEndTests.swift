import Foundation
import RowCastJSON
import Testing

/// Memory after a restart stays near the running size for the same state: restoring many small
/// feeds used to reserve about 56 kB each (13 times their running size).
@Suite(.serialized)
struct RestoreMemoryEndToEndTests {
    static let feeds = 2_000

    /// Resident memory of `pid` in KiB, from /proc.
    static func residentKiB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    @Test(
        "2,000 one-item feeds: resident memory after a restart is at most 1.5 times the running one (it was over 3 times)",
        .timeLimit(.minutes(3)))
    func restoreStaysSmall() throws {
        let plugins = try DaemonProcess.pluginDirectory()
        let state = try TemporaryDirectory("rowcast-state")
        var daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        var peer = try RawPeer(daemon)
        for index in 0..<Self.feeds {
            let request: JSONValue = [
                "op": "upsert", "feed": .string("f\(index)"), "item": DaemonEndToEndTests.product("1"),
            ]
            try peer.pushRaw(request.serialized())
        }
        // A status asked while the pushes are applied may wait behind them (more than 5 s under
        // a sanitizer on a busy machine): asked again until the count is right.
        let loaded = try eventually(timeout: 60) {
            (try? peer.request(["op": "status"]))?["feeds"]?.arrayValue?.count == Self.feeds
        }
        #expect(loaded)
        let running = try Self.residentKiB(daemon.process.processIdentifier)
        daemon.stop()
        daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        peer = try RawPeer(daemon)
        #expect(try peer.request(["op": "status"])["feeds"]?.arrayValue?.count == Self.feeds)
        let restored = try Self.residentKiB(daemon.process.processIdentifier)
        daemon.stop()
        print(
            "restore memory: \(Self.feeds) one-item feeds, running \(running / 1024) MiB, after restart \(restored / 1024) MiB"
        )
        #expect(Double(restored) <= 1.5 * Double(running), "running \(running) KiB, after restart \(restored) KiB")
    }
}
