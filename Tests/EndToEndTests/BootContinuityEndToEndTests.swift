import Foundation
import RowCastJSON
import RowCastTesting
import Testing

/// Epochs through a crash restart when `/proc` hides the boot id, as the unit's
/// `ProcSubset=pid` does: rowcastd runs in a mount namespace of the test's making
/// (`unshare -m`) with `/proc` mounted `subset=pid`. A reboot is simulated with a time
/// namespace that moves `CLOCK_BOOTTIME` (`unshare -T --boottime`).
@Suite(.serialized)
struct BootContinuityEndToEndTests {
    /// Runs rowcastd with `/proc` mounted `subset=pid` in a mount namespace of its own.
    static let subsetProc = ["/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c", mountAndExec]
    /// The same, in a time namespace whose boot clock is 1,000,000 s ahead: to rowcastd the
    /// machine booted at another time, as after a reboot. (`--fork`: a time namespace applies
    /// to children; `--kill-child`: signals to the test's process end rowcastd too.)
    static let subsetProcRebooted = [
        "/usr/bin/unshare", "-m", "--propagation", "private", "-T", "--boottime", "1000000", "--fork", "--kill-child",
        "/bin/sh", "-c", mountAndExec,
    ]
    static let mountAndExec =
        "mount -t proc -o subset=pid proc /proc && test ! -e /proc/sys/kernel/random/boot_id && exec \"$0\" \"$@\""

    /// Whether this machine lets the test make those namespaces (root, or enough capabilities).
    static let namespacesPermitted: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let probe = subsetProcRebooted + ["/bin/true"]
        guard let run = try? ProgramRun.run(probe[0], Array(probe.dropFirst())) else { return false }
        return run.status == 0
    }()

    static func epoch(_ daemon: DaemonProcess, feed: String) throws -> JSONValue? {
        try RawPeer(daemon).request(["op": "snapshot", "feed": .string(feed)])["epoch"]
    }

    @Test(
        "with /proc mounted subset=pid (no boot id), a SIGKILL and restart keep the epoch; a simulated reboot starts a new one",
        .enabled(
            if: namespacesPermitted,
            "unshare -m -T and mount -t proc -o subset=pid are not permitted here (needs root or CAP_SYS_ADMIN)"),
        .timeLimit(.minutes(2)))
    func epochSurvivesCrashWithoutBootID() throws {
        let plugins = try DaemonProcess.pluginDirectory()
        let state = try TemporaryDirectory("rowcast-state")
        var daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state, launcher: Self.subsetProc)
        let mounts = try String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/mountinfo", encoding: .utf8)
        #expect(
            mounts.split(separator: "\n").contains { $0.contains(" /proc ") && $0.contains("subset=pid") },
            "rowcastd does not see /proc as subset=pid:\n\(mounts)")
        let peer = try RawPeer(daemon)
        for id in ["1", "2", "3"] {
            #expect(
                try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product(id)])["ok"]
                    == true)
        }
        let epoch = try Self.epoch(daemon, feed: "cars")
        #expect(epoch != nil)

        daemon.crash()
        daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state, launcher: Self.subsetProc)
        let snapshot = try RawPeer(daemon).request(["op": "snapshot", "feed": "cars"])
        #expect(snapshot["epoch"] == epoch, "log:\n\(daemon.log)")
        #expect(snapshot["seq"] == 3)
        #expect(!daemon.log.contains("restarted since"), "log:\n\(daemon.log)")

        daemon.crash()
        daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state, launcher: Self.subsetProcRebooted)
        defer { daemon.stop() }
        let rebooted = try RawPeer(daemon).request(["op": "snapshot", "feed": "cars"])
        #expect(rebooted["epoch"] != epoch)
        #expect(rebooted["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.count == 3)
        #expect(
            daemon.log.contains("the machine restarted since rowcastd last stopped without a clean shutdown"),
            "log:\n\(daemon.log)")
    }
}
