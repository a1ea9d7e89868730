import Foundation
import RowCastJSON
import RowCastWire
import Testing

/// `/healthz`, WATCHDOG=1 and STATUS= with `--engine-threads 2`: every loop is judged, so one
/// loop stuck in a plugin (`plugin_isolation: in_process` with the fault fixture's `hang` item,
/// which spins forever) makes the daemon stuck and stops the watchdog while the other loop
/// goes on serving.
@Suite(.serialized)
struct EngineThreadsHealthEndToEndTests {
    /// Two feeds, the first served by loop 0 and the second by loop 1.
    static let feeds = EngineThreadsEndToEndTests.feeds(2, loops: 2, prefix: "health")

    /// A rowcastd with two engine loops and the fault fixture loaded into itself.
    static func daemon(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> DaemonProcess {
        try DaemonProcess(
            pluginDirectory: try FaultPlugin.directory(),
            extraArguments: ["--plugin-isolation", "in_process", "--engine-threads", "2"] + arguments,
            environment: environment, launcher: WatchdogEndToEndTests.noCoreDumps)
    }

    /// An upsert of a fixture item `id` into `feed`.
    static func upsert(_ feed: String, id: String) -> JSONValue {
        ["op": "upsert", "feed": .string(feed), "item": ["id": .string(id), "type": .string(FaultPlugin.itemType)]]
    }

    /// Sends the `hang` item to loop 1's feed without waiting for its ack.
    static func hangLoopOne(_ peer: RawPeer) throws {
        var hang = upsert(feeds[1], id: "hang").objectValue!
        hang["req"] = "hang"
        _ = try peer.dealer.send([[], JSONValue.object(hang).serialized()])
    }

    /// `/healthz` once it stops answering 200 (20 s at most).
    static func unhealthy(_ daemon: DaemonProcess) throws -> (status: Int, body: String) {
        var health = try HTTPGet.get(daemon.http, "/healthz")
        let deadline = Date().addingTimeInterval(20)
        while health.status == 200 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            health = try HTTPGet.get(daemon.http, "/healthz")
        }
        return (health.status, health.body)
    }

    @Test(
        "with two engine loops, /healthz answers 503 stuck naming rowcastd-loop-1 while that loop hangs in a plugin, though loop 0 still serves",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)))
    func healthNamesTheStuckLoop() throws {
        #expect(Self.feeds.map { Partition(feed: $0).index % 2 } == [0, 1])
        let daemon = try Self.daemon(["--health-stall-ms", "300"])
        defer { daemon.crash() }
        let peer = try RawPeer(daemon)
        for feed in Self.feeds { #expect(try peer.request(Self.upsert(feed, id: "seed"))["ok"] == true) }
        let healthy = try HTTPGet.get(daemon.http, "/healthz")
        #expect(healthy.status == 200)
        #expect(healthy.body.contains("every one of the 2 loops finished a pass"), "\(healthy.body)")

        try Self.hangLoopOne(peer)
        let health = try Self.unhealthy(daemon)
        #expect(health.status == 503)
        #expect(health.body.hasPrefix("{\"status\":\"stuck\""), "\(health.body)")
        #expect(health.body.contains("the loop rowcastd-loop-1 has not finished a pass"), "\(health.body)")
        // Loop 0 is not stuck: its feed still takes items.
        #expect(try peer.request(Self.upsert(Self.feeds[0], id: "after"))["ok"] == true)
        #expect(try HTTPGet.get(daemon.http, "/healthz").status == 503)
    }

    @Test(
        "with two engine loops, STATUS= sums both loops' feeds and rows, and WATCHDOG=1 stops while loop 1 hangs though loop 0 passes",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)))
    func watchdogWaitsForEveryLoop() throws {
        let socket = try FakeNotifySocket()
        let daemon = try Self.daemon(
            ["--health-stall-ms", "300"], environment: ["NOTIFY_SOCKET": socket.name, "WATCHDOG_USEC": "200000"])
        defer { daemon.crash() }
        try socket.waitFor("READY=1")
        let peer = try RawPeer(daemon)
        try peer.subscriber.subscribe(Array("heartbeat".utf8))
        // One row in loop 0's feed, two in loop 1's: only the sums say 2 feeds and 3 rows.
        for (feed, id) in [(Self.feeds[0], "a"), (Self.feeds[1], "a"), (Self.feeds[1], "b")] {
            #expect(try peer.request(Self.upsert(feed, id: id))["ok"] == true)
        }
        let deadline = Date().addingTimeInterval(30)
        while !socket.received.contains(where: { $0.contains("STATUS=2 feeds, 3 rows, ") }), Date() < deadline {
            _ = socket.receive(timeout: 0.1)
        }
        #expect(socket.received.contains { $0.contains("STATUS=2 feeds, 3 rows, ") }, "\(socket.received)")
        try socket.waitFor("WATCHDOG=1")

        try Self.hangLoopOne(peer)
        #expect(try Self.unhealthy(daemon).status == 503)
        // The stall is older than the watchdog's interval: no ping is owed any more. Whatever
        // came before is set aside; then loop 0 sends three heartbeats (its passes go on).
        while socket.receive(timeout: 0.05) != nil {}
        let mark = socket.received.count
        for _ in 0..<3 { _ = try peer.receive { topic, _ in topic == "heartbeat" } }
        while socket.receive(timeout: 0.05) != nil {}
        let after = socket.received.dropFirst(mark)
        #expect(!after.contains { $0.contains("WATCHDOG=1") }, "\(Array(after))")
        #expect(try peer.request(Self.upsert(Self.feeds[0], id: "after"))["ok"] == true)
    }
}
