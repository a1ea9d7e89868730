import CRowCastHost
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `rowcast-plugin-host`: runs one plugin for rowcastd, in a process of its own.
///
/// rowcastd starts it with descriptor 3 the request channel (``HostFrame``), 4 the shared
/// ``HostStatusPage``, 5 the plugin's private copy (``PluginImage``), 1 and 2 a pipe into
/// rowcastd's log, and nothing else. Before loading the plugin the host makes sure it dies
/// with rowcastd, enters a network namespace of its own, limits its address space, drops root
/// for `--user`, and forbids gaining privileges again; once the plugin is loaded it confines
/// itself with Landlock and seccomp (``HostSandbox``; not with `--confinement relaxed`), says
/// hello with the confinement in force, and answers batches of calls until rowcastd says quit
/// or goes away.
public enum PluginHostMain {
    /// The descriptors rowcastd hands over.
    public enum Descriptor {
        /// The request channel (a Unix stream socket).
        public static let channel: Int32 = 3
        /// The shared status page.
        public static let statusPage: Int32 = 4
        /// The plugin image.
        public static let image: Int32 = 5
        /// How many descriptors a host gets, 0 to 5.
        public static let count: Int32 = 6
    }

    /// Exit statuses: 0 when told to quit or when rowcastd went away.
    public enum Status {
        /// Wrong arguments or descriptors: not started by rowcastd.
        public static let usage: Int32 = 64
        /// Could not drop privileges or set the limits.
        public static let setup: Int32 = 71
        /// The channel broke.
        public static let channel: Int32 = 74
    }

    /// The host's settings, from its command line.
    struct Arguments {
        var file = "plugin"
        var memoryMegabytes = 0
        var user: String?
        var strict = true
        var controlGroupFiles: [String] = []

        init?(_ arguments: [String]) {
            var rest = arguments[...]
            while let flag = rest.popFirst() {
                guard let value = rest.popFirst() else { return nil }
                switch flag {
                case "--file": file = value
                case "--memory-mb":
                    guard let number = Int(value), number >= 0 else { return nil }; memoryMegabytes = number
                case "--user": user = value
                case "--cgroup": controlGroupFiles.append(value)
                case "--confinement":
                    guard value == "strict" || value == "relaxed" else { return nil }; strict = value == "strict"
                default: return nil
                }
            }
        }
    }

    /// Runs the host; never returns.
    public static func run() -> Never {
        _ = rowcast_set_parent_death_signal(SIGKILL)
        if getppid() == 1 { exit(0) }  // rowcastd died before the signal was armed
        guard let arguments = Arguments(Array(CommandLine.arguments.dropFirst())),
            fcntl(Descriptor.channel, F_GETFD) >= 0, fcntl(Descriptor.image, F_GETFD) >= 0,
            let page = HostStatusPage(descriptor: Descriptor.statusPage)
        else {
            let usage =
                "rowcast-plugin-host: started by rowcastd only (usage: --file PATH [--memory-mb N] [--user NAME] [--confinement strict|relaxed] [--cgroup FILE]..., descriptors 3-5)\n"
            _ = usage.withCString { write(2, $0, strlen($0)) }
            exit(Status.usage)
        }
        rowcast_close_from(Descriptor.count)
        var sandbox = HostSandbox(strict: arguments.strict, pluginFile: arguments.file)  // before chdir: resolves it
        _ = chdir("/")
        sandbox.note(HostConfinement.Measure.parentDeathSignal)
        if let problem = confine(arguments, sandbox: &sandbox) {
            fail(PluginRefusal(file: arguments.file, code: .hostFailed, reason: problem), status: Status.setup)
        }
        let plugin: LoadedPlugin
        do {
            let image = try PluginImage.adopt(descriptor: Descriptor.image, file: arguments.file)
            plugin = try PluginLoader(logger: Logger(label: "rowcast.plugin-host") { _ in SwiftLogNoOpLogHandler() })
                .loadPlugin(from: image)
        } catch {
            fail(error, status: 0)
        }
        // As late as possible: the plugin and its libraries are loaded, its first call is next.
        sandbox.confineLoadedPlugin()
        let hello = HostHello(
            name: plugin.name, version: plugin.version, itemTypes: plugin.itemTypes, headerTypes: plugin.headerTypes,
            handlesSelect: plugin.handlesSelect, abiRevision: plugin.abiRevision, confinement: sandbox.confinement)
        guard HostFrame.send(hello.frame, on: Descriptor.channel) else { exit(0) }
        serve(plugin, page: page)
    }

    /// Answers batches until the channel closes or rowcastd says quit.
    private static func serve(_ plugin: LoadedPlugin, page: HostStatusPage) -> Never {
        var reader = HostFrameReader()
        var results = HostResultsFrame(capacity: 64 * 1024)
        while true {
            let frame: ArraySlice<UInt8>
            do {
                guard let next = try reader.nextFrame() else {
                    guard reader.fill(from: Descriptor.channel) else { exit(0) }
                    continue
                }
                frame = next
            } catch {
                exit(Status.channel)
            }
            var wire = HostWireReader(frame)
            do {
                switch HostFrame.Tag(rawValue: try wire.uint8()) {
                case .batch:
                    let calls = try HostCall.decodeBatch(&wire)
                    var chunk = HostCallResult.firstChunkSize
                    frame.withUnsafeBytes { inputs in
                        for (index, call) in calls.enumerated() {
                            page.begin(index)
                            // The input is read where it is in the batch frame, the output
                            // written where it goes in the results frame. The ranges are the
                            // frame's indices, which start where it is in the reader's buffer.
                            let input =
                                (call.input.lowerBound - frame.startIndex)..<(call.input.upperBound - frame.startIndex)
                            results.append { output in
                                guard
                                    let raw = plugin.rawCall(
                                        call.kind, UnsafeRawBufferPointer(rebasing: inputs[input]), appendingTo: &output
                                    )
                                else {
                                    return (0, false, true)
                                }
                                return (raw.status, raw.overflowed, false)
                            }
                            // Answer in chunks: rowcastd applies the first rows while the rest render.
                            if results.count == chunk || index == calls.count - 1 {
                                guard HostFrame.send(results.finished(), on: Descriptor.channel) else { exit(0) }
                                results.clear()
                                chunk = min(chunk * 2, HostCallResult.largestChunkSize)
                            }
                        }
                    }
                case .quit:
                    exit(0)
                default:
                    exit(Status.channel)
                }
            } catch {
                exit(Status.channel)
            }
        }
    }

    /// Enters a network namespace of its own, drops root for the configured user, limits the
    /// address space and forbids new privileges, noting each in `sandbox`; what went wrong, or
    /// nil.
    private static func confine(_ arguments: Arguments, sandbox: inout HostSandbox) -> String? {
        // Into the control group rowcastd made for it, while still root: all it starts stays in.
        for file in arguments.controlGroupFiles {
            let joined = String(getpid()).withCString { text in
                let descriptor = open(file, O_WRONLY | O_CLOEXEC)
                defer { if descriptor >= 0 { close(descriptor) } }
                return descriptor >= 0 && write(descriptor, text, strlen(text)) == strlen(text)
            }
            if !joined { sandbox.noteGap("cgroup: cannot join \(file): \(String(cString: strerror(errno)))") }
            sandbox.inControlGroup = sandbox.inControlGroup || joined
        }
        sandbox.isolateNetwork()
        if geteuid() == 0, let user = arguments.user, !user.isEmpty {
            guard let entry = getpwnam(user) else {
                return "no user \"\(user)\" to run plugins as; create it or set plugin_user"
            }
            let uid = entry.pointee.pw_uid
            let gid = entry.pointee.pw_gid
            guard setgroups(0, nil) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
                return "cannot switch to user \"\(user)\": \(String(cString: strerror(errno)))"
            }
            _ = rowcast_set_dumpable(1)  // keeps /proc/self/fd readable to itself after the switch
            // The kernel clears the parent-death signal when the user changes: armed again, or a
            // host hanging in a call outlives a rowcastd killed with SIGKILL.
            _ = rowcast_set_parent_death_signal(SIGKILL)
            if getppid() == 1 { exit(0) }
            sandbox.note(HostConfinement.Measure.user(user))
        } else if geteuid() == 0 {
            sandbox.noteGap("user: runs as root (plugin_user is empty)")
        }
        if arguments.memoryMegabytes > 0, let sanitizer = SanitizerRuntime.name {
            let notice =
                "rowcast-plugin-host: built with the \(sanitizer) sanitizer, whose shadow memory needs terabytes of address space: the \(arguments.memoryMegabytes) MiB memory limit is not enforced\n"
            _ = notice.withCString { write(2, $0, strlen($0)) }
            sandbox.noteGap("memory: no RLIMIT_AS under the \(sanitizer) sanitizer")
        } else if arguments.memoryMegabytes > 0 {
            let bytes = rlim_t(arguments.memoryMegabytes) << 20
            var limit = rlimit(rlim_cur: bytes, rlim_max: bytes)
            guard setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0 else {
                return
                    "cannot limit the address space to \(arguments.memoryMegabytes) MiB: \(String(cString: strerror(errno)))"
            }
            sandbox.note(HostConfinement.Measure.addressSpace(megabytes: arguments.memoryMegabytes))
        }
        // No core files: they would hold the items a plugin was rendering.
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
        guard rowcast_set_no_new_privileges() == 0 else {
            return "cannot set no_new_privs: \(String(cString: strerror(errno)))"
        }
        sandbox.note(HostConfinement.Measure.noNewPrivileges)
        return nil
    }

    /// Tells rowcastd why the plugin was not loaded, then exits.
    private static func fail(_ refusal: PluginRefusal, status: Int32) -> Never {
        _ = HostFrame.send(HostHello.refusalFrame(refusal), on: Descriptor.channel)
        exit(status)
    }
}
