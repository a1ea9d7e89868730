import Foundation
import RowCastJSON
import Testing

/// What systemd's watchdog and stop do to rowcastd, healthy or with its loop stuck in a
/// plugin (`plugin_isolation: in_process` with the fixture's `hang` item, which spins
/// forever): SIGABRT always kills at once, and a stop ends within `drain_timeout_ms`.
@Suite(.serialized)
struct WatchdogEndToEndTests {
    /// Runs rowcastd without core dumps (SIGABRT's default action dumps core).
    static let noCoreDumps = ["/bin/sh", "-c", "ulimit -c 0; exec \"$0\" \"$@\""]

    /// A rowcastd with the fault fixture loaded into itself.
    static func inProcessDaemon(extraArguments: [String] = []) throws -> DaemonProcess {
        let plugins = try FaultPlugin.directory()
        return try DaemonProcess(
            pluginDirectory: plugins, extraArguments: ["--plugin-isolation", "in_process"] + extraArguments,
            launcher: noCoreDumps)
    }

    /// Sends the `hang` item without waiting for its ack, then shows that the loop no longer
    /// answers: a status request gets no reply.
    static func hangLoop(_ daemon: DaemonProcess) throws -> RawPeer {
        let peer = try RawPeer(daemon)
        #expect(try peer.request(["op": "status"])["ok"] == true)
        let hang: JSONValue = [
            "op": "upsert", "feed": "stuck", "req": "hang",
            "item": ["id": "hang", "type": .string(FaultPlugin.itemType)],
        ]
        _ = try peer.dealer.send([[], hang.serialized()])
        try peer.dealer.setOption(.receiveTimeout, 1500)
        let status: JSONValue = ["op": "status", "req": "after-hang"]
        _ = try peer.dealer.send([[], status.serialized()])
        let reply = try peer.dealer.receiveMultipart()
        #expect(
            reply == nil,
            "the loop still answers: \(reply.map { String(decoding: $0.last ?? [], as: UTF8.self) } ?? "")")
        return peer
    }

    @Test("a healthy rowcastd dies of the first SIGABRT", .timeLimit(.minutes(1)))
    func sigabrtKillsHealthyDaemon() throws {
        let daemon = try DaemonProcess(launcher: Self.noCoreDumps)
        defer { daemon.stop() }
        #expect(try RawPeer(daemon).request(["op": "status"])["ok"] == true)
        daemon.signal(SIGABRT)
        let status = daemon.waitForExit(timeout: 10)
        #expect(status == SIGABRT, "after SIGABRT: \(status.map { "exit \($0)" } ?? "still running")")
        #expect(daemon.process.terminationReason == .uncaughtSignal)
    }

    @Test(
        "a rowcastd whose loop is stuck in a plugin dies of SIGABRT (the watchdog's signal)",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(1)))
    func sigabrtKillsStuckLoop() throws {
        let daemon = try Self.inProcessDaemon()
        defer { daemon.stop() }
        _ = try Self.hangLoop(daemon)
        #expect(daemon.process.isRunning)
        daemon.signal(SIGABRT)
        let status = daemon.waitForExit(timeout: 10)
        #expect(status == SIGABRT, "after SIGABRT: \(status.map { "exit \($0)" } ?? "still running")")
        #expect(daemon.process.terminationReason == .uncaughtSignal)
    }

    @Test(
        "a rowcastd whose loop is stuck in a plugin exits 70 once a SIGTERM's drain outlasts drain_timeout_ms",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(1)))
    func sigtermDrainDeadlineEndsStuckLoop() throws {
        let daemon = try Self.inProcessDaemon(extraArguments: ["--drain-timeout-ms", "1000"])
        defer { daemon.stop() }
        _ = try Self.hangLoop(daemon)
        daemon.signal(SIGTERM)
        // Bounded generously: the deadline is 1 s; without it the process never exits.
        let status = daemon.waitForExit(timeout: 20)
        #expect(status == 70, "after SIGTERM: \(status.map { "exit \($0)" } ?? "still running 20 s later")")
        #expect(daemon.process.terminationReason == .exit)
        #expect(daemon.log.contains("the drain did not finish within drain_timeout_ms"), "log:\n\(daemon.log)")
    }

    @Test("a healthy drain ends well within drain_timeout_ms: exit 0, no deadline", .timeLimit(.minutes(1)))
    func healthyDrainExitsZero() throws {
        let daemon = try DaemonProcess(extraArguments: ["--drain-timeout-ms", "30000"])
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        #expect(
            try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1")])["ok"] == true)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 20) == 0)
        #expect(!daemon.log.contains("the drain did not finish"))
        #expect(daemon.log.contains("drainTimeoutMs=30000"), "log:\n\(daemon.log)")
    }
}
