import Foundation
import GRDB
import RowCastJSON
import Testing

/// A damaged stored record is never served silently: `rowcastd --check-state` names it (exit
/// 65), and a start gives its feed a new epoch and lists the item in the quarantine; a damaged
/// answer refuses the start with exit 65.
@Suite(.serialized)
struct DamagedRecordEndToEndTests {
    /// Runs `sql` on the stopped daemon's database.
    static func change(_ state: TemporaryDirectory, _ sql: String) throws {
        let queue = try DatabaseQueue(path: state.url.appendingPathComponent("rowcast.db").path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    @Test(
        "a changed byte in an item: --check-state exits 65 naming it; the next start serves a new epoch without it and quarantines it",
        .timeLimit(.minutes(2)))
    func damagedItem() throws {
        let plugins = try DaemonProcess.pluginDirectory()
        let state = try TemporaryDirectory("rowcast-state")
        var daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        var peer = try RawPeer(daemon)
        for id in ["1", "2"] {
            #expect(
                try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product(id)])["ok"]
                    == true)
        }
        let before = try peer.request(["op": "snapshot", "feed": "cars"])
        daemon.stop()

        let clean = try runRowcastdToExit(["--check-state", "--state-dir", state.path])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stdout.contains("items 2"), "\(clean.stdout)")
        #expect(clean.stdout.contains("deltas 2"), "\(clean.stdout)")
        #expect(clean.stdout.contains("ok: no damaged record"), "\(clean.stdout)")

        // The price 39999 becomes 39998: valid JSON, a different value.
        try Self.change(
            state, "UPDATE items SET json = CAST(replace(CAST(json AS TEXT), '39999', '39998') AS BLOB) WHERE id = '2'")
        let damaged = try runRowcastdToExit(["--check-state", "--state-dir", state.path])
        #expect(damaged.status == 65, "\(damaged.stderr)")
        #expect(damaged.stdout.contains(#"damaged: feed "cars": item "2": checksum mismatch"#), "\(damaged.stdout)")
        #expect(damaged.stderr.contains("1 damaged record"), "\(damaged.stderr)")

        daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        peer = try RawPeer(daemon)
        let after = try peer.request(["op": "snapshot", "feed": "cars"])
        #expect(after["epoch"] != before["epoch"], "the feed kept its epoch without the item")
        let rows = (after["sections"]?.arrayValue ?? []).flatMap { $0["rows"]?.arrayValue ?? [] }
        #expect(rows.compactMap { $0["id"]?.stringValue } == ["1"], "\(after)")
        let quarantine = try peer.request(["op": "quarantine"])
        let listed = quarantine["items"]?.arrayValue ?? []
        #expect(listed.count == 1, "\(quarantine)")
        #expect(listed.first?["id"] == "2")
        #expect(listed.first?["code"] == "record_damaged")
        #expect(daemon.log.contains("stored item record damaged"), "\(daemon.log)")
        // Sent again, the item is served and the state is whole.
        #expect(
            try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("2")])["ok"] == true)
        #expect(try peer.request(["op": "quarantine"])["items"]?.arrayValue?.isEmpty == true)
        daemon.stop()
        let repaired = try runRowcastdToExit(["--check-state", "--state-dir", state.path])
        #expect(repaired.status == 0, "\(repaired.stdout)\(repaired.stderr)")
    }

    @Test(
        "a damaged remembered answer refuses the start with exit 65 naming it and --check-state; a running daemon's state is not checked (75)",
        .timeLimit(.minutes(2)))
    func damagedAnswer() throws {
        let plugins = try DaemonProcess.pluginDirectory()
        let state = try TemporaryDirectory("rowcast-state")
        let daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        let peer = try RawPeer(daemon)
        let reply = try peer.request([
            "op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1"), "client": "shop", "req": 7,
        ])
        #expect(reply["ok"] == true)
        let busy = try runRowcastdToExit(["--check-state", "--state-dir", state.path])
        #expect(busy.status == 75, "\(busy.stderr)")
        daemon.stop()

        try Self.change(state, "UPDATE requests SET ord = ord + 1")
        let refused = try runRowcastdToExit(["--plugins", plugins.path, "--state-dir", state.path])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains(#"the remembered answer to request 7 of client "shop""#), "\(refused.stderr)")
        #expect(refused.stderr.contains("--check-state"), "\(refused.stderr)")
        let checked = try runRowcastdToExit(["--check-state", "--state-dir", state.path])
        #expect(checked.status == 65)
        #expect(checked.stdout.contains(#"client "shop": the remembered answer to request 7"#), "\(checked.stdout)")
    }

    @Test("--check-state on a directory without a state exits 66, naming the file")
    func nothingToCheck() throws {
        let state = try TemporaryDirectory("rowcast-state")
        let result = try runRowcastdToExit(["--check-state", "--state-dir", state.path])
        #expect(result.status == 66)
        #expect(result.stderr.contains("rowcast.db does not exist"), "\(result.stderr)")
    }
}
