import Foundation
import RowCastJSON
import Testing

/// Deltas are logged with their batch: a subscriber resumes with `since` from history across a
/// SIGKILL of rowcastd, instead of taking a whole snapshot.
@Suite(.serialized)
struct HistoryResumeEndToEndTests {
    @Test(
        "killed with SIGKILL right after acked upserts, a restarted rowcastd answers since from history",
        .timeLimit(.minutes(2)))
    func resumeAcrossKill() throws {
        let plugins = try DaemonProcess.pluginDirectory()
        let state = try TemporaryDirectory("rowcast-state")
        var daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        var peer = try RawPeer(daemon)
        #expect(
            try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("0")])["ok"] == true)
        let seen = try peer.request(["op": "snapshot", "feed": "cars"])
        let seq = Int(seen["seq"]?.numberValue ?? -1)
        for index in 1...5 {
            let reply = try peer.request([
                "op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(index)"),
            ])
            #expect(reply["ok"] == true)
        }
        daemon.crash()

        daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        defer { daemon.stop() }
        peer = try RawPeer(daemon)
        let reply = try peer.request([
            "op": "since", "feed": "cars", "epoch": seen["epoch"]!, "seq": .number(Double(seq)),
        ])
        #expect(reply["covered"] == true, "\(reply)\n\(daemon.log)")
        let deltas = reply["deltas"]?.arrayValue ?? []
        #expect(deltas.map { Int($0["seq"]?.numberValue ?? 0) } == Array((seq + 1)...(seq + 5)), "\(reply)")
        #expect(deltas.allSatisfy { $0["epoch"] == seen["epoch"] })
    }
}
