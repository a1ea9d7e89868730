import CRowCastHost

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The kernel confinement a plugin host puts itself under, best first, noting each measure in
/// force and each that could not be applied (see docs/PLUGINS.md, "What a plugin can do").
///
/// Before the plugin is loaded, as root: a fresh network namespace. After it is loaded, right
/// before its first call: Landlock (read-only files beneath the plugin's directory and the
/// shared libraries, no TCP, no signals out) and the seccomp filter (no new processes, no exec,
/// no new sockets, no ptrace). Where seccomp is not in force and the host has no control group
/// of its own, `RLIMIT_NPROC` bounds the processes a host running as another user than root
/// can start.
///
/// A relaxed host (`plugin_unconfined`) gets only the part of the seccomp filter that keeps
/// what it starts in its process group (no `setsid`, no `setpgid`), and `RLIMIT_NPROC`.
///
/// A host built with a sanitizer gets that part of the filter only (LeakSanitizer forks a
/// tracer and ptraces the process at exit; a report runs llvm-symbolizer) and keeps `/usr`,
/// `/opt` and `/proc` readable under Landlock (the runtime reads /proc/self/maps, the
/// symbolizer lives in a bin directory); it says so in its confinement's gaps.
struct HostSandbox {
    /// Whether the strict confinement applies (false: the plugin is in `plugin_unconfined`).
    let strict: Bool
    /// The plugin file (resolved to an absolute path), whose directory stays readable.
    let pluginFile: String
    /// What is in force so far.
    private(set) var confinement = HostConfinement()
    /// Whether the host joined the control group rowcastd made for it (whose task limit
    /// stands in for `RLIMIT_NPROC`).
    var inControlGroup = false

    /// A sandbox for the plugin in `pluginFile` (a relative path is resolved from the working
    /// directory now).
    init(strict: Bool, pluginFile: String) {
        self.strict = strict
        if let resolved = realpath(pluginFile, nil) {
            self.pluginFile = String(cString: resolved)
            free(resolved)
        } else {
            self.pluginFile = pluginFile
        }
        if !strict {
            confinement.gaps.append(
                "seccomp, landlock, network namespace: relaxed for this plugin by plugin_unconfined")
        }
    }

    /// Notes a measure applied elsewhere (the user, the limits).
    mutating func note(_ measure: String) { confinement.measures.append(measure) }

    /// Notes a measure that could not be applied.
    mutating func noteGap(_ gap: String) { confinement.gaps.append(gap) }

    /// Moves the host into a network namespace of its own (before dropping root).
    mutating func isolateNetwork() {
        guard strict else { return }
        if rowcast_unshare_network() == 0 {
            note(HostConfinement.Measure.networkNamespace)
        } else {
            let why = errno == EPERM ? "not permitted (rowcastd is not root)" : String(cString: strerror(errno))
            noteGap("network namespace: \(why)")
        }
    }

    /// Confines the host once its plugin is loaded: seccomp, then the process limit when
    /// seccomp is not in force, then Landlock (last: counting processes reads /proc).
    mutating func confineLoadedPlugin() {
        var seccomp = false
        let sanitizer = SanitizerRuntime.name
        if strict, sanitizer == nil {
            if rowcast_seccomp_install(1) == 0 {
                seccomp = true
                note(HostConfinement.Measure.seccomp)
            } else {
                noteGap("seccomp: \(String(cString: strerror(errno)))")
            }
        } else {
            if let sanitizer {
                noteGap(
                    "seccomp: only its process-group part, the \(sanitizer) sanitizer forks, execs llvm-symbolizer and ptraces (LeakSanitizer)"
                )
            }
            // What it starts stays in its process group, which rowcastd kills with it.
            if rowcast_seccomp_install(0) == 0 {
                note(HostConfinement.Measure.seccompProcessGroup)
            } else {
                noteGap("seccomp (process group): \(String(cString: strerror(errno)))")
            }
        }
        if !seccomp && !inControlGroup { limitProcesses() }
        guard strict else { return }
        let readable = readablePaths()
        let abi = withCStrings(readable) { rowcast_landlock_restrict($0, Int32(readable.count)) }
        if abi > 0 {
            note(HostConfinement.Measure.landlock(abi: Int(abi)))
        } else {
            let why =
                switch errno {
                case ENOSYS, EOPNOTSUPP: "not supported by this kernel (or turned off: lsm= on its command line)"
                case EPERM: "refused by a seccomp filter above rowcastd (systemd: SystemCallFilter=landlock_*)"
                default: String(cString: strerror(errno))
                }
            noteGap("landlock: \(why)")
        }
    }

    /// `RLIMIT_NPROC` at the processes its user has now plus a few: counts every process and
    /// thread of the user, and binds no process of root.
    private mutating func limitProcesses() {
        guard getuid() != 0 else {
            noteGap("process count: no RLIMIT_NPROC for root; set plugin_user")
            return
        }
        let limit = Self.taskCount(of: getuid()) + Self.processHeadroom
        if rowcast_set_process_limit(UInt(limit)) == 0 {
            note(HostConfinement.Measure.processLimit(limit))
        } else {
            noteGap("process count: \(String(cString: strerror(errno)))")
        }
    }

    /// How many processes and threads beyond those its user has a host without seccomp may add.
    static let processHeadroom = 16

    /// The tasks (processes and threads) whose owner is `uid`, from /proc.
    static func taskCount(of uid: uid_t) -> Int {
        guard let proc = opendir("/proc") else { return 0 }
        defer { closedir(proc) }
        var count = 0
        while let entry = readdir(proc) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard let first = name.utf8.first, first >= UInt8(ascii: "1"), first <= UInt8(ascii: "9") else { continue }
            var info = stat()
            guard stat("/proc/\(name)", &info) == 0, info.st_uid == uid else { continue }
            guard let tasks = opendir("/proc/\(name)/task") else {
                count += 1
                continue
            }
            while let task = readdir(tasks) {
                if task.pointee.d_name.0 != CChar(UInt8(ascii: ".")) { count += 1 }
            }
            closedir(tasks)
        }
        return count
    }

    /// What stays readable (and executable) under Landlock: the plugin's directory, the shared
    /// library directories, the directory of every file mapped now, time zones, and the few
    /// device files a runtime reads.
    func readablePaths() -> [String] {
        var paths = [
            Self.directory(of: pluginFile), "/usr/lib", "/usr/lib64", "/usr/local/lib", "/lib", "/lib64",
            "/etc/ld.so.cache", "/etc/localtime", "/usr/share/zoneinfo", "/dev/null", "/dev/urandom",
            "/sys/devices/system/cpu",
        ]
        if SanitizerRuntime.isActive { paths += ["/usr", "/opt", "/proc"] }
        for file in Self.mappedFiles() {
            let directory = Self.directory(of: file)
            if !paths.contains(directory) { paths.append(directory) }
        }
        return paths
    }

    /// The files mapped into this process (its libraries), from /proc/self/maps.
    static func mappedFiles() -> [String] {
        guard let maps = fopen("/proc/self/maps", "r") else { return [] }
        defer { fclose(maps) }
        var files: [String] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, maps) > 0, let line {
            let text = String(cString: line)
            guard let slash = text.firstIndex(of: "/") else { continue }
            let path = text[slash...].trimmingSuffix("\n")
            guard !path.hasSuffix(" (deleted)"), !path.hasPrefix("/memfd:"), !path.hasPrefix("/proc/"),
                !path.hasPrefix("/dev/"), !files.contains(path)
            else { continue }
            files.append(path)
        }
        return files
    }

    /// The directory part of `path` (`/` for a file at the root, `.` for a bare name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let pointers = strings.map { UnsafePointer(strdup($0)) }
        defer { for pointer in pointers { free(UnsafeMutablePointer(mutating: pointer)) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

extension Substring {
    /// The text without `suffix` at its end, when it ends with it.
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : String(self)
    }
}
