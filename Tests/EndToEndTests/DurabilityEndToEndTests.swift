import Foundation
import RowCastClient
import RowCastJSON
import Testing

/// rowcastd's durable state through real restarts: continuity of seq and epoch, answers to
/// repeated requests, and refusals of state it cannot use.
@Suite(.serialized)
struct DurabilityEndToEndTests {
    @Test(
        "after a clean stop or a SIGKILL, feeds come back with the same snapshot, seq and epoch, and go on from there")
    func restartContinues() throws {
        let plugins = try DaemonProcess.pluginDirectory()
        let state = try TemporaryDirectory("rowcast-state")
        var daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        var peer = try RawPeer(daemon)
        for id in ["1", "2", "3"] {
            #expect(
                try peer.request([
                    "op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product(id, section: "s\(id)"),
                ])["ok"] == true)
        }
        _ = try peer.request(["op": "delete", "feed": "cars", "id": "2"])
        let before = try peer.request(["op": "snapshot", "feed": "cars", "req": 0])
        #expect(before["seq"] == 4)

        for stop in ["SIGTERM", "SIGKILL"] {
            if stop == "SIGTERM" { daemon.stop() } else { daemon.crash() }
            daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
            peer = try RawPeer(daemon)
            let after = try peer.request(["op": "snapshot", "feed": "cars", "req": 0])
            #expect(after == before, "after \(stop)")
        }
        try peer.subscribe([Array("rows.cars".utf8) + [0]])
        let ack = try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("4")])
        #expect(ack["seq"] == 5)
        #expect(ack["epoch"] == before["epoch"])
        let delta = try peer.delta(feed: "cars", seq: 5)
        #expect(delta["epoch"] == before["epoch"])
        #expect(delta["seq"] == 5)
    }

    @Test("a request sent again after a crash gets its first answer and is not applied twice")
    func repeatAfterCrash() throws {
        let plugins = try DaemonProcess.pluginDirectory()
        let state = try TemporaryDirectory("rowcast-state")
        var daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        var peer = try RawPeer(daemon)
        let add: JSONValue = [
            "op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1"), "client": "e2e", "req": 1,
        ]
        let remove: JSONValue = ["op": "delete", "feed": "cars", "id": "1", "client": "e2e", "req": 2]
        _ = try peer.request(add)
        let removed = try peer.request(remove)
        #expect(removed["seq"] == 2)
        _ = try peer.request([
            "op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1", name: "Back"), "client": "e2e",
            "req": 3,
        ])
        daemon.crash()
        daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        peer = try RawPeer(daemon)
        #expect(try peer.request(remove) == removed)
        let snapshot = try peer.request(["op": "snapshot", "feed": "cars"])
        #expect(snapshot["seq"] == 3)
        #expect(snapshot["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.first?["content"]?["title"] == "Back")
    }

    @Test(
        "a database restored from an older copy is refused (exit 65) until the loss is accepted; then the feed gets a new epoch"
    )
    func olderCopyNewEpoch() throws {
        let plugins = try DaemonProcess.pluginDirectory()
        let state = try TemporaryDirectory("rowcast-state")
        var daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        var peer = try RawPeer(daemon)
        _ = try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1")])
        daemon.stop()
        let database = state.url.appendingPathComponent("rowcast.db").path
        let backup = state.url.appendingPathComponent("backup.db").path
        try FileManager.default.copyItem(atPath: database, toPath: backup)
        daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        peer = try RawPeer(daemon)
        let first = try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("2")])
        #expect(first["seq"] == 2)
        daemon.stop()
        try FileManager.default.removeItem(atPath: database)
        try FileManager.default.copyItem(atPath: backup, toPath: database)
        let refused = try runRowcastdToExit(["--plugins", plugins.path, "--state-dir", state.path])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("holds 2 commits of store"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--accept-state-loss"))
        daemon = try DaemonProcess(
            pluginDirectory: plugins, stateDirectory: state, extraArguments: ["--accept-state-loss"])
        peer = try RawPeer(daemon)
        let snapshot = try peer.request(["op": "snapshot", "feed": "cars"])
        #expect(snapshot["seq"] == 1)
        #expect(snapshot["epoch"] != first["epoch"])
        #expect(daemon.log.contains("new epoch"))
    }

    @Test(
        "plugins that changed while stopped keep their feeds' epoch: the stored rows are served, and rendered again in the background"
    )
    func pluginsChanged() throws {
        let state = try TemporaryDirectory("rowcast-state")
        var daemon = try DaemonProcess(stateDirectory: state)
        var peer = try RawPeer(daemon)
        let ack = try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1")])
        let before = try peer.request(["op": "snapshot", "feed": "cars"])
        daemon.stop()
        daemon = try DaemonProcess(stateDirectory: state)  // fresh copies of the plugin files
        peer = try RawPeer(daemon)
        let snapshot = try peer.request(["op": "snapshot", "feed": "cars"])
        #expect(snapshot["epoch"] == ack["epoch"])
        #expect(snapshot["sections"] == before["sections"])
        #expect(daemon.log.contains("rendered again in the background"), "\(daemon.log)")
        #expect(try eventually { try peer.request(["op": "status"])["staleRows"] == 0 })
        // The same plugin build drew the same row: no delta was needed.
        #expect(try peer.request(["op": "snapshot", "feed": "cars"])["seq"] == 1)
    }

    @Test(
        "when commits fail (the disk is full), acks become storage_error, nothing is published, and the daemon goes on")
    func commitFailure() throws {
        // 2 MiB: the limit also holds for the in-memory copies of the plugin files, and a plugin
        // built with AddressSanitizer is over 1 MiB.
        let daemon = try DaemonProcess(fileSizeLimitKiB: 2048)
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("rows.cars".utf8) + [0]])
        let big = String(repeating: "x", count: 60_000)
        var lastSeq: JSONValue?
        var failure: JSONValue?
        for index in 0..<120 {
            let reply = try peer.request([
                "op": "upsert", "feed": "cars", "client": "full", "req": .number(Double(index)),
                "item": DaemonEndToEndTests.product("\(index)", name: big),
            ])
            if reply["ok"] == false {
                failure = reply
                break
            }
            lastSeq = reply["seq"]
        }
        let refused = try #require(failure, "the file size limit was never reached")
        #expect(refused["error"]?["code"] == "storage_error")
        #expect(refused["error"]?["message"]?.stringValue?.contains(daemon.stateDirectory.path + "/rowcast.db") == true)
        #expect(refused["error"]?["message"]?.stringValue?.contains("Nothing of the request was applied") == true)
        // About 3 MB: in parts; the first says the seq.
        let snapshot = try peer.request(["op": "snapshot", "feed": "cars", "chunked": true])
        #expect(snapshot["seq"] == lastSeq)
        // Every delta published is one that was committed: the last has the last acked seq.
        var seen: [JSONValue] = []
        while let delta = try? peer.receive(until: { topic, _ in topic == "rows.cars" }).1 {
            seen.append(delta["seq"] ?? .null)
            if delta["seq"] == lastSeq { break }
        }
        #expect(seen.last == lastSeq)
        // Small requests that fit still fail or succeed cleanly; the daemon keeps serving.
        #expect(try peer.request(["op": "status"])["ok"] == true)
    }

    @Test("state that cannot be used stops rowcastd at start with a message naming the file and its own exit status")
    func badStorage() throws {
        let scratch = try TemporaryDirectory("rowcast-bad")
        let plain = scratch.url.appendingPathComponent("plain").path
        _ = FileManager.default.createFile(atPath: plain, contents: Data("x".utf8))
        let notDirectory = try runRowcastdToExit(["--state-dir", plain])
        #expect(notDirectory.status == 73)
        #expect(notDirectory.stderr.contains(plain))
        #expect(notDirectory.stderr.contains("not a directory"))

        let damaged = scratch.url.appendingPathComponent("damaged")
        try FileManager.default.createDirectory(at: damaged, withIntermediateDirectories: true)
        let database = damaged.appendingPathComponent("rowcast.db")
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        try garbage.write(to: database)
        let corrupt = try runRowcastdToExit(["--state-dir", damaged.path])
        #expect(corrupt.status == 65)
        #expect(corrupt.stderr.contains(database.path))
        #expect(corrupt.stderr.contains("move it aside"))
        #expect(try Data(contentsOf: database) == garbage)

        let held = try DaemonProcess()
        let locked = try runRowcastdToExit(["--state-dir", held.stateDirectory.path])
        #expect(locked.status == 75)
        #expect(locked.stderr.contains("in use by another rowcastd"))

        let usage = try runRowcastdToExit(["--durability", "sometimes"])
        #expect(usage.status == 64)
    }
}
