import CRowCastHost
import Foundation
import RowCastJSON
import RowCastTesting
import RowCastPluginHosting
import Testing

/// A plugin that tries to reach outside its host (`escape_plugin.c`: exec, fork and exec, a
/// detached child, children that allocate, loopback TCP, a file write) is refused or contained
/// by the kernel confinement in force, which `rowcast status` names; another plugin's feed is
/// served meanwhile (docs/PLUGINS.md, "What a plugin can do").
///
/// Each check follows what the host reports in force: where a kernel feature is missing (or a
/// sanitizer leaves part of the filter out), the test says so and checks the fallback instead.
@Suite(.serialized)
struct PluginEscapeEndToEndTests {
    /// The fixture's source.
    static let source = BuildProducts.repositoryRoot.appendingPathComponent(
        "Tests/Fixtures/c-plugin/escape_plugin.c"
    ).path

    /// A plugin directory with the escape fixture and the fault fixture (whose `good` items
    /// are the other feed's).
    static func directory() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory("rowcast-escape-plugins")
        try FaultPlugin.compile(source, to: directory.url.appendingPathComponent("librowcast-escape.so").path)
        try FaultPlugin.compile(to: directory.url.appendingPathComponent(FaultPlugin.fileName).path)
        return directory
    }

    /// An acked upsert of an escape item `id` into `feed`, with `data`.
    static func upsert(_ id: String, data: JSONObject = [:]) -> JSONValue {
        ["op": "upsert", "feed": "escape", "item": ["id": .string(id), "type": "escape", "data": .object(data)]]
    }

    /// What the attempt `id` did: the content of its row, after an upsert that must be acked.
    static func attempt(_ peer: RawPeer, _ id: String, data: JSONObject = [:]) throws -> JSONValue {
        let reply = try peer.request(upsert(id, data: data))
        try #require(reply["ok"] == true, "upsert of \(id): \(reply)")
        let row = try #require(PluginFaultEndToEndTests.rows(peer, feed: "escape")[id], "no row for \(id)")
        return row["content"] ?? .null
    }

    /// Whether `pid` is a live process (not gone, not a zombie).
    static func alive(_ pid: Int32) -> Bool {
        guard pid > 0, kill(pid, 0) == 0,
            let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }

    /// A TCP listener on 127.0.0.1: its descriptor and port; nothing ever connects but a plugin.
    static func listener() throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        try #require(bound, "cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    /// Whether a connection waits on the listener `descriptor` (accepting and closing it).
    static func accepted(_ descriptor: Int32) -> Bool {
        let connection = accept(descriptor, nil, nil)
        if connection >= 0 { close(connection) }
        return connection >= 0
    }

    /// A directory anyone may write to (so only the confinement, not file permissions, can keep
    /// the host's user from writing in it).
    static func openDirectory() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory("rowcast-escape-target")
        try #require(chmod(directory.path, 0o1777) == 0)
        return directory
    }

    /// `rowcast status` against `daemon`.
    static func statusText(_ daemon: DaemonProcess) throws -> String {
        let command = try CommandRunner(["status", "--control", daemon.control])
        #expect(command.wait(timeout: 20) == 0, "rowcast status: \(command.stderr)")
        return command.stdout
    }

    /// Whether `reply` says the item's host ended (crashed, or killed past its deadline).
    static func hostEnded(_ reply: JSONValue) -> Bool {
        PluginFaultEndToEndTests.quarantiningCodes.contains(reply["error"]?["code"]?.stringValue ?? "")
    }

    /// What this kernel offers, probed apart from the host, so that a host that leaves out a
    /// measure the kernel has fails the test rather than taking the fallback's checks.
    enum Kernel {
        /// Seccomp filters on a supported architecture, in a build without a sanitizer.
        static var seccomp: Bool {
            #if arch(x86_64) || arch(arm64)
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            return status.contains("\nSeccomp:") && !SanitizerRuntime.isActive
            #else
            return false
            #endif
        }

        /// Landlock, at any ABI version.
        static var landlock: Bool { rowcast_landlock_abi() > 0 }

        /// A cgroup v1 memory or pids hierarchy that root may make groups in.
        static var controlGroup: Bool {
            let groups = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
            return geteuid() == 0
                && groups.split(separator: "\n").contains { $0.contains(":memory:") || $0.contains(":pids:") }
        }

        /// A new network namespace for root (`unshare -n true`).
        static var networkNamespace: Bool {
            guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
            return (try? ProgramRun.run("/usr/bin/unshare", ["-n", "/bin/true"], timeout: 10).status) == 0
        }
    }

    /// Notes in the test output that a kernel feature is missing and which fallback is checked.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data("PluginEscapeEndToEndTests: \(text)\n".utf8))
    }

    @Test(
        "a plugin cannot exec, fork, leave a detached child, connect to loopback TCP or write a file; rowcast status names the confinement; other feeds are served",
        .enabled(
            if: geteuid() == 0 && FaultPlugin.compiler != nil && getpwnam("nobody") != nil,
            "needs root (as CI runs it), a C compiler and the user nobody"),
        .timeLimit(.minutes(2)))
    func strictConfinement() throws {
        let plugins = try Self.directory()
        let target = try Self.openDirectory()
        let (listening, port) = try Self.listener()
        defer { close(listening) }
        let daemon = try DaemonProcess(
            pluginDirectory: plugins, extraArguments: PluginFaultEndToEndTests.isolation(timeoutMilliseconds: 2000))
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        var served = 0
        func serveOtherFeed() throws {
            served += 1
            let reply = try peer.request(PluginFaultEndToEndTests.upsert("other", "good-\(served)"))
            #expect(reply["ok"] == true, "the other feed was not served: \(reply)")
        }
        try serveOtherFeed()
        #expect(try Self.attempt(peer, "warm-up")["outcome"] == "none")
        let host = try #require(try PluginFaultEndToEndTests.host(peer, plugin: "escape"), "no escape host")
        let measures = Set(HostConfinement(json: host["confinement"]).measures)
        let seccomp = measures.contains(HostConfinement.Measure.seccomp)
        let landlock = measures.contains { $0.hasPrefix("landlock ABI") }
        let network = measures.contains(HostConfinement.Measure.networkNamespace)
        let offered = [
            (seccomp, Kernel.seccomp, "seccomp"), (landlock, Kernel.landlock, "Landlock"),
            (network, Kernel.networkNamespace, "a network namespace"),
        ]
        for (present, available, name) in offered where !present {
            #expect(
                !available, "the kernel offers \(name) but the host is not under it: \(host["confinement"] ?? .null)")
            Self.note("\(name) is not available here (\(host["confinement"] ?? .null)); checking the fallback")
        }

        // A control group of its own, where rowcastd may make one, that the host is in.
        let hostPID = Int32(host["pid"]?.numberValue ?? 0)
        if measures.contains(where: { $0.hasPrefix("cgroup") }) {
            let groups = (try? String(contentsOfFile: "/proc/\(hostPID)/cgroup", encoding: .utf8)) ?? ""
            #expect(groups.contains("/rowcast-"), "the host is not in its control group: \(groups)")
        } else {
            #expect(!Kernel.controlGroup, "rowcastd may make a control group but the host has none: \(host)")
            Self.note("no control group per host here; the process group and the limits stand in")
        }

        // rowcast status names the confinement in force, measure by measure.
        let status = try Self.statusText(daemon)
        let line = status.split(separator: "\n").first { $0.hasPrefix("confinement of escape:") } ?? ""
        #expect(!line.isEmpty, "rowcast status names no confinement:\n\(status)")
        for measure in measures { #expect(line.contains(measure), "\(measure) missing from: \(line)") }
        #expect(line.contains(HostConfinement.Measure.processGroup), "\(line)")
        #expect(daemon.log.contains("plugin host confined by"), "the log does not say the confinement")

        // fork and exec, a detached child: no new process under seccomp.
        let forkExec = try Self.attempt(peer, "fork-exec")
        let detached = try Self.attempt(peer, "detached")
        let detachedPID = Int32(detached["pid"]?.numberValue ?? 0)
        defer { if Self.alive(detachedPID) { kill(detachedPID, SIGKILL) } }
        if seccomp {
            #expect(forkExec["outcome"] == "refused" && forkExec["step"] == "fork", "\(forkExec)")
            #expect(detached["outcome"] == "refused" && detached["step"] == "fork", "\(detached)")
        } else {
            // The fallback: the child cannot leave the host's process group (checked below).
            Self.note("processes may be started here: \(forkExec), \(detached)")
        }
        try serveOtherFeed()

        // Children that allocate: none can be started under seccomp; without it, at most the
        // fixture's 3, each under the address-space limit, all gone when the render ends.
        let children = try Self.attempt(peer, "children")
        if seccomp {
            #expect(children["outcome"] == "refused" && children["step"] == "fork", "\(children)")
        } else {
            #expect((children["children"]?.numberValue ?? 0) <= 3, "\(children)")
        }
        try serveOtherFeed()

        // Loopback TCP: no socket under seccomp; no route in a fresh network namespace; no
        // connect under Landlock ABI 4 and later.
        let connect = try Self.attempt(peer, "connect", data: ["port": .string(String(port))])
        if seccomp || network || landlock {
            #expect(connect["outcome"] == "refused", "\(connect)")
            if seccomp { #expect(connect["step"] == "socket", "\(connect)") }
        }
        #expect(!Self.accepted(listening) || !(seccomp || network || landlock), "the plugin reached the listener")
        try serveOtherFeed()

        // A signal to another process of the same user (the other plugin's host, also run as
        // plugin_user): refused by seccomp, or by Landlock's scope from ABI 6.
        let other = try #require(try PluginFaultEndToEndTests.host(peer, plugin: "fault"))
        let otherPID = Int(other["pid"]?.numberValue ?? 0)
        let signal = try Self.attempt(peer, "signal", data: ["pid": .string(String(otherPID))])
        let landlockABI =
            measures.filter { $0.hasPrefix("landlock ABI ") }.compactMap { Int($0.dropFirst("landlock ABI ".count)) }
            .max() ?? 0
        if seccomp || landlockABI >= 6 {
            #expect(signal["outcome"] == "refused" && signal["errno"] == "Operation not permitted", "\(signal)")
        } else {
            Self.note("neither seccomp nor Landlock 6: a host may signal its user's other processes (\(signal))")
        }
        try serveOtherFeed()

        // A file write: Landlock keeps every file read-only, even in a directory anyone may write.
        let file = target.url.appendingPathComponent("escaped.txt").path
        let write = try Self.attempt(peer, "write", data: ["path": .string(file)])
        if landlock {
            #expect(write["outcome"] == "refused", "\(write)")
            #expect(!FileManager.default.fileExists(atPath: file), "the plugin wrote \(file)")
        } else {
            Self.note("without Landlock the write is bounded only by the host user's file permissions: \(write)")
        }
        try serveOtherFeed()

        // exec: refused by seccomp (EPERM), or by Landlock (EACCES: nothing outside the library
        // directories may be executed; a sanitized host may execute beneath /usr, for
        // llvm-symbolizer); without both the host becomes /bin/true and ends.
        if seccomp || (landlock && !SanitizerRuntime.isActive) {
            let content = try Self.attempt(peer, "exec")
            #expect(content["outcome"] == "refused", "\(content)")
            if seccomp { #expect(content["errno"] == "Operation not permitted", "\(content)") }
        } else {
            #expect(Self.hostEnded(try peer.request(Self.upsert("exec"))))
        }
        try serveOtherFeed()

        // Without seccomp, what the host started dies with it: its process group is killed.
        if !seccomp {
            #expect(Self.hostEnded(try peer.request(Self.upsert("crash"))))
            if measures.contains(HostConfinement.Measure.seccompProcessGroup) {
                #expect(try eventually(timeout: 10) { !Self.alive(detachedPID) }, "a child outlived its host")
            } else {
                Self.note("no seccomp at all: a child that calls setsid may outlive its host (\(detached))")
            }
        }
        try serveOtherFeed()
        #expect(served == 8)
        #expect(daemon.process.isRunning)
    }

    @Test(
        "a plugin in plugin_unconfined may fork, exec and connect, but what it starts stays in its host's process group and dies with the host",
        .enabled(
            if: geteuid() == 0 && FaultPlugin.compiler != nil && getpwnam("nobody") != nil,
            "needs root (as CI runs it), a C compiler and the user nobody"),
        .timeLimit(.minutes(2)))
    func unconfinedPluginIsContained() throws {
        let plugins = try Self.directory()
        let daemon = try DaemonProcess(
            pluginDirectory: plugins,
            extraArguments: PluginFaultEndToEndTests.isolation(timeoutMilliseconds: 2000) + [
                "--plugin-unconfined", "escape",
            ])
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        #expect(try Self.attempt(peer, "warm-up")["outcome"] == "none")
        let host = try #require(try PluginFaultEndToEndTests.host(peer, plugin: "escape"))
        let confinement = HostConfinement(json: host["confinement"])
        #expect(!confinement.measures.contains(HostConfinement.Measure.seccomp), "\(confinement)")
        #expect(confinement.gaps.contains { $0.contains("plugin_unconfined") }, "\(confinement)")
        let status = try Self.statusText(daemon)
        #expect(status.contains("escape not confined by seccomp, landlock, network namespace"), "\(status)")

        // A relaxed render may start a process...
        let forkExec = try Self.attempt(peer, "fork-exec")
        #expect(forkExec["outcome"] == "ran" && forkExec["status"] == 7, "\(forkExec)")
        // ... a bounded number of them ...
        let children = try Self.attempt(peer, "children")
        #expect(children["outcome"] == "ran" && (children["children"]?.numberValue ?? 9) <= 3, "\(children)")
        // ... whose memory counts against the host's: with a control group, 3 x 96 MiB cannot
        // all live under its 256 MiB (the kernel kills one); without, each has its own limit.
        let survivors = Int(children["survivors"]?.numberValue ?? 9)
        if confinement.measures.contains(where: { $0.hasPrefix("cgroup memory 256 MiB") }) {
            #expect(survivors * 96 < 256, "children held more than the host's limit together: \(children)")
        } else {
            #expect(survivors <= 3, "\(children)")
            Self.note("no control group of its own here: children are bounded one by one (\(children))")
        }

        // ... but what it starts cannot leave the host's process group, and dies with the host.
        let detached = try Self.attempt(peer, "detached")
        let pid = Int32(detached["pid"]?.numberValue ?? 0)
        let hostPID = Int32(
            try #require(try PluginFaultEndToEndTests.host(peer, plugin: "escape"))["pid"]?.numberValue ?? 0)
        if confinement.measures.contains(HostConfinement.Measure.seccompProcessGroup) {
            #expect(detached["setsid"] == "Operation not permitted", "\(detached)")
            #expect(getpgid(pid) == hostPID, "the detached child is not in the host's process group")
        } else {
            Self.note("no seccomp here: a child may call setsid and outlive its host (\(detached))")
        }
        try #require(pid > 0 && Self.alive(pid), "the detached child did not start: \(detached)")
        defer { if Self.alive(pid) { kill(pid, SIGKILL) } }
        // Its host ends (exec replaces it with /bin/true, which exits; the child still holds the
        // host's channel, so rowcastd may see a crash or a timeout): the child goes too.
        let exec = try peer.request(Self.upsert("exec"))
        #expect(Self.hostEnded(exec), "\(exec)")
        if confinement.measures.contains(HostConfinement.Measure.seccompProcessGroup) {
            #expect(try eventually(timeout: 10) { !Self.alive(pid) }, "the detached child outlived its host")
        }
        #expect(try peer.request(PluginFaultEndToEndTests.upsert("other", "good"))["ok"] == true)
        #expect(daemon.process.isRunning)
    }
}
