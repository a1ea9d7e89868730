import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import Testing

/// What a plugin host is allowed, read from the kernel's view of the real host process
/// (`/proc/<pid>`): when rowcastd runs as root the host runs as `plugin_user` with that user's
/// group and no other, cannot gain privileges, holds no descriptor of the state, and has the
/// configured address-space limit (docs/OPERATIONS.md, "Plugin hosts").
@Suite(.serialized)
struct PluginHostConfinementEndToEndTests {
    /// The value of `key` in `/proc/<pid>/status` (the text after the colon, trimmed).
    static func status(_ pid: Int32, _ key: String) throws -> String {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(
            text.split(separator: "\n").first { $0.hasPrefix(key + ":") }, "no \(key) in /proc/\(pid)/status")
        return line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
    }

    /// The pid of the running host of the fixture plugin, once there is one.
    static func hostPID(_ peer: RawPeer) throws -> Int32 {
        var pid: Int32 = 0
        _ = try eventually(timeout: 10) {
            let host = try PluginFaultEndToEndTests.host(peer, plugin: "fault")
            pid = Int32(host?["pid"]?.numberValue ?? 0)
            return pid > 0 && host?["state"] == "running"
        }
        return pid
    }

    @Test(
        "as root, a host runs as plugin_user (nobody) with its group only, no new privileges, the memory limit and no descriptor of the state",
        .enabled(
            if: geteuid() == 0 && FaultPlugin.compiler != nil && getpwnam("nobody") != nil,
            "needs root, a C compiler and the user nobody"),
        .timeLimit(.minutes(1)))
    func hostDropsRoot() throws {
        let nobody = try #require(getpwnam("nobody")).pointee
        let plugins = try FaultPlugin.directory()
        let daemon = try DaemonProcess(pluginDirectory: plugins, extraArguments: PluginFaultEndToEndTests.isolation())
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        #expect(try peer.request(PluginFaultEndToEndTests.upsert("f", "good"))["ok"] == true)
        let pid = try Self.hostPID(peer)
        try #require(pid > 0, "no running host; log:\n\(daemon.log)")

        // Real, effective, saved and filesystem ids are all the plugin user's.
        let uids = try Self.status(pid, "Uid").split(whereSeparator: \.isWhitespace).map(String.init)
        let gids = try Self.status(pid, "Gid").split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(uids == Array(repeating: String(nobody.pw_uid), count: 4), "Uid: \(uids)")
        #expect(gids == Array(repeating: String(nobody.pw_gid), count: 4), "Gid: \(gids)")
        #expect(try Self.status(pid, "Groups").isEmpty, "supplementary groups kept")
        #expect(try Self.status(pid, "NoNewPrivs") == "1")

        // The address-space limit of --plugin-memory-mb 256 (none under a sanitizer, whose
        // shadow memory needs terabytes of address space).
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let addressSpace = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max address space") })
        if !SanitizerRuntime.isActive {
            #expect(addressSpace.contains(String(256 << 20)), "\(addressSpace)")
        }

        // Its open descriptors: none is in the state directory (the database, its log, the lock).
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        let targets = descriptors.compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }
        let stateDirectory = daemon.stateDirectory.path
        #expect(
            !targets.contains { $0.hasPrefix(stateDirectory) }, "the host holds a descriptor of the state: \(targets)")
    }

    @Test(
        "as root, a plugin_user that does not exist refuses the plugin with a message naming the user, and rowcastd keeps serving",
        .enabled(if: geteuid() == 0 && FaultPlugin.compiler != nil, "needs root and a C compiler"),
        .timeLimit(.minutes(1)))
    func missingPluginUser() throws {
        let plugins = try FaultPlugin.directory()
        let daemon = try DaemonProcess(
            pluginDirectory: plugins,
            extraArguments: PluginFaultEndToEndTests.isolation() + ["--plugin-user", "rowcast-no-such-user"])
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        let listing = try peer.request(["op": "plugins"])
        let refusal = listing["refusals"]?.arrayValue?.first {
            $0["file"]?.stringValue?.hasSuffix(FaultPlugin.fileName) == true
        }
        #expect(refusal?["reason"]?.stringValue?.contains("rowcast-no-such-user") == true, "\(listing)")
        #expect(try peer.request(["op": "status"])["ok"] == true)
        #expect(daemon.process.isRunning)
    }
}
