import RowCastSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A control group of its own for one plugin host, where rowcastd may create one: as root, on
/// the cgroup v1 `memory` and `pids` hierarchies, beneath rowcastd's own groups. Its limits
/// hold for whatever the host starts (the memory of all its processes together, their count),
/// and when the host ends every process left in it is killed and the group removed.
///
/// Under systemd rowcastd is not root and the unit's own group bounds rowcastd and its hosts
/// together (cgroup v2 lets only a delegated subtree be split), so no group is created there.
final class HostControlGroup: Sendable {
    /// The group's directory in each hierarchy.
    let directories: [String]
    /// The measure as status shows it, e.g. `cgroup memory 256 MiB, 128 tasks`.
    let measure: String

    /// The most processes and threads a host's group may hold.
    static let taskLimit = 128

    private static let counter = LockedValue(0)

    private init(directories: [String], measure: String) {
        self.directories = directories
        self.measure = measure
    }

    /// A new group for a host limited to `memoryMegabytes` (0: no memory limit), or nil and
    /// why there is none.
    static func create(memoryMegabytes: Int) -> (group: HostControlGroup?, gap: String?) {
        guard geteuid() == 0 else {
            return (nil, "rowcastd is not root (under systemd the unit's control group bounds the hosts)")
        }
        let own = ownGroups()
        let controllers = ["memory", "pids"].filter { own[$0] != nil }
        guard !controllers.isEmpty else {
            return (nil, "no cgroup v1 memory or pids hierarchy (cgroup v2 needs a delegated subtree)")
        }
        let number = counter.withLock { value in
            if value == 0 {
                for controller in controllers {
                    removeStaleGroups(beneath: "/sys/fs/cgroup/\(controller)\(own[controller]!)")
                }
            }
            value += 1
            return value
        }
        let name = "rowcast-\(getpid())-host-\(number)"
        var directories: [String] = []
        var limits: [String] = []
        for controller in controllers {
            let base = "/sys/fs/cgroup/\(controller)\(own[controller]!)"
            let directory = (base.hasSuffix("/") ? base : base + "/") + name
            guard mkdir(directory, 0o755) == 0 else {
                let why = String(cString: strerror(errno))
                HostControlGroup(directories: directories, measure: "").remove()
                return (nil, "cannot create \(directory): \(why)")
            }
            directories.append(directory)
            switch controller {
            case "memory" where memoryMegabytes > 0 && !SanitizerRuntime.isActive:
                if writeText(String(memoryMegabytes << 20), to: directory + "/memory.limit_in_bytes") {
                    limits.append("memory \(memoryMegabytes) MiB")
                }
            case "pids":
                if writeText(String(taskLimit), to: directory + "/pids.max") { limits.append("\(taskLimit) tasks") }
            default: break
            }
        }
        let measure = "cgroup" + (limits.isEmpty ? "" : " " + limits.joined(separator: ", "))
        return (HostControlGroup(directories: directories, measure: measure), nil)
    }

    /// The `cgroup.procs` files a host writes its pid to, to join the group.
    var processFiles: [String] { directories.map { $0 + "/cgroup.procs" } }

    /// Kills every process in the group (`SIGKILL`), until none is left or a second passed.
    func killAll() {
        for _ in 0..<1000 {
            let pids = directories.flatMap { Self.readPIDs($0 + "/cgroup.procs") }
            if pids.isEmpty { return }
            for pid in pids { kill(pid, SIGKILL) }
            usleep(1000)
        }
    }

    /// Removes the group (after ``killAll()``; a group that still holds a process stays).
    func remove() {
        for directory in directories {
            for _ in 0..<100 where rmdir(directory) != 0 && errno == EBUSY { usleep(1000) }
        }
    }

    /// Removes the empty groups left beneath `parent` by a rowcastd that is gone (killed with
    /// `SIGKILL`, it could not remove its hosts' groups); a group that holds a process stays.
    static func removeStaleGroups(beneath parent: String) {
        guard let stream = opendir(parent) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name.hasPrefix("rowcast-"), let end = name.range(of: "-host-"),
                let owner = pid_t(name[name.index(name.startIndex, offsetBy: 8)..<end.lowerBound]), owner != getpid(),
                kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            _ = rmdir((parent.hasSuffix("/") ? parent : parent + "/") + name)
        }
    }

    /// This process's group in each cgroup v1 hierarchy, by controller, from /proc/self/cgroup.
    static func ownGroups() -> [String: String] {
        let text = readText("/proc/self/cgroup")
        var groups: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, !fields[1].isEmpty else { continue }
            for controller in fields[1].split(separator: ",") { groups[String(controller)] = String(fields[2]) }
        }
        return groups
    }

    private static func readPIDs(_ file: String) -> [pid_t] {
        readText(file).split(separator: "\n").compactMap { pid_t($0) }
    }

    private static func readText(_ file: String) -> String {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func writeText(_ text: String, to file: String) -> Bool {
        let descriptor = open(file, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return text.withCString { write(descriptor, $0, strlen($0)) } == text.utf8.count
    }
}
