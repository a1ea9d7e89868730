import Foundation
import RowCastJSON
import RowCastTesting
import Testing

/// State that was lost is said loudly: rowcastd refuses to start (exit 65, naming what is gone
/// and `--accept-state-loss`) instead of serving a fresh or older state as if nothing happened.
@Suite(.serialized)
struct StateLossEndToEndTests {
    /// A state directory whose feed `cars` reached `count` acked items, then a SIGKILL.
    static func crashedState(items count: Int) throws -> (plugins: TemporaryDirectory, state: TemporaryDirectory) {
        let plugins = try DaemonProcess.pluginDirectory()
        let state = try TemporaryDirectory("rowcast-state")
        let daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        let peer = try RawPeer(daemon)
        for index in 1...count {
            #expect(
                try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(index)")])[
                    "ok"] == true)
        }
        daemon.crash()
        return (plugins, state)
    }

    @Test(
        "a zero-length rowcast.db after a SIGKILL: exit 65 naming the file, the position and --accept-state-loss; accepted, the feeds are gone and the next start needs no flag",
        .timeLimit(.minutes(2)))
    func zeroLengthDatabase() throws {
        let (plugins, state) = try Self.crashedState(items: 5)
        let database = state.url.appendingPathComponent("rowcast.db").path
        let position = state.url.appendingPathComponent("rowcast.position").path
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        try Data().write(to: URL(fileURLWithPath: database))
        let positionBefore = try Data(contentsOf: URL(fileURLWithPath: position))

        let refused = try runRowcastdToExit(["--plugins", plugins.path, "--state-dir", state.path])
        #expect(refused.status == 65)
        #expect(
            refused.stderr.contains("state was lost: the database \(database) is empty (0 bytes)"), "\(refused.stderr)")
        #expect(refused.stderr.contains(position))
        #expect(refused.stderr.contains("--accept-state-loss"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)).isEmpty, "the refused database was written")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: position)) == positionBefore, "the position file was rewritten")

        var daemon = try DaemonProcess(
            pluginDirectory: plugins, stateDirectory: state, extraArguments: ["--accept-state-loss"])
        #expect(daemon.log.contains("state loss accepted"), "\(daemon.log)")
        #expect(daemon.log.contains(" error "), "the accepted loss must be logged as an error:\n\(daemon.log)")
        let status = try RawPeer(daemon).request(["op": "status"])
        #expect(status["feeds"]?.arrayValue?.isEmpty == true, "\(status)")
        daemon.stop()
        daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        #expect(!daemon.log.contains("state was lost"))
        daemon.stop()
    }

    @Test(
        "a write-ahead log damaged in its first frames after a SIGKILL never starts silently with fewer items: all are there, or exit 65",
        .timeLimit(.minutes(2)))
    func damagedWriteAheadLog() throws {
        let (plugins, state) = try Self.crashedState(items: 300)
        let wal = state.url.appendingPathComponent("rowcast.db-wal").path
        if let handle = FileHandle(forWritingAtPath: wal) {
            // Past the 32-byte header: the first frames' headers and pages.
            handle.seek(toFileOffset: 32)
            handle.write(Data(repeating: 0xA5, count: 8192))
            try handle.close()
        }
        let daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state, waitForReady: false)
        defer { daemon.stop() }
        let started = eventually { ReadyLine(in: daemon.standardOutput) != nil || !daemon.process.isRunning }
        #expect(started, "rowcastd neither started nor exited")
        if daemon.process.isRunning {
            try daemon.waitForReadyLine()
            let snapshot = try RawPeer(daemon).request(["op": "snapshot", "feed": "cars"])
            let rows = (snapshot["sections"]?.arrayValue ?? []).reduce(0) { $0 + ($1["rows"]?.arrayValue?.count ?? 0) }
            #expect(rows == 300, "started with \(rows) of 300 acked items; log:\n\(daemon.log)")
            print("damaged WAL: the database held all 300 items (checkpointed before the damage)")
        } else {
            #expect(daemon.process.terminationStatus == 65, "log:\n\(daemon.log)")
            #expect(daemon.log.contains("state was lost"), "log:\n\(daemon.log)")
            #expect(daemon.log.contains("--accept-state-loss"))
            print("damaged WAL: refused with 65: \(daemon.log.split(separator: "\n").last ?? "")")
        }
    }
}
