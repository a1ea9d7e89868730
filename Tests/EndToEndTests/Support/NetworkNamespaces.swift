import Foundation
import RowCastTesting

/// Network namespaces made for one test with `ip netns add`, joined by veth pairs, and deleted
/// (with any process left in them) by ``removeAll()`` or when released.
///
/// Names are `rcrelay-<pid>-<n>-<role>`: unique per run, and namespaces left by a run that
/// died (its pid gone) are deleted by the next one.
final class NetworkNamespaces {
    /// The `ip` command of iproute2, if there is one.
    static let ip: String? = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The prefix of every namespace these tests make.
    static let prefix = "rcrelay-"

    /// Why namespaces cannot be made here (no `ip`, not root, no CAP_NET_ADMIN), or nil.
    static let unavailable: String? = {
        guard let ip else { return "no ip command (install iproute2)" }
        let probe = "\(prefix)\(getpid())-probe"
        guard let add = try? ProgramRun.run(ip, ["netns", "add", probe], timeout: 20) else { return "cannot run \(ip)" }
        guard add.status == 0 else { return "ip netns add failed (needs root or CAP_NET_ADMIN): \(add.output)" }
        _ = try? ProgramRun.run(ip, ["netns", "del", probe], timeout: 20)
        return nil
    }()

    /// Whether namespaces can be made here.
    static var available: Bool { unavailable == nil }

    /// The namespaces made so far, by role.
    private(set) var names: [String: String] = [:]
    private let stem: String
    private static let counter = Locked(0)

    /// An empty set; first deletes namespaces that earlier runs (whose process is gone) left.
    init() throws {
        guard Self.ip != nil else { throw TestFailure("no ip command") }
        let serial = Self.counter.update { value -> Int in
            value += 1
            return value
        }
        stem = "\(Self.prefix)\(getpid())-\(serial)"
        Self.removeLeftovers()
    }

    /// Makes the namespace for `role` (its loopback up) and returns its name.
    @discardableResult
    func add(_ role: String) throws -> String {
        let name = "\(stem)-\(role)"
        try run(["netns", "add", name])
        names[role] = name
        try run(["-n", name, "link", "set", "lo", "up"])
        return name
    }

    /// Joins two namespaces with a veth pair: interface `a.interface` with `a.address` (CIDR)
    /// in `a.role`'s namespace, and the same for `b`.
    func link(
        _ a: (role: String, interface: String, address: String), _ b: (role: String, interface: String, address: String)
    ) throws {
        let first = try name(a.role), second = try name(b.role)
        try run([
            "link", "add", a.interface, "netns", first, "type", "veth", "peer", "name", b.interface, "netns", second,
        ])
        for (namespace, end) in [(first, a), (second, b)] {
            try run(["-n", namespace, "addr", "add", end.address, "dev", end.interface])
            try run(["-n", namespace, "link", "set", end.interface, "up"])
        }
    }

    /// The launcher that runs a program in `role`'s namespace.
    func launcher(_ role: String) throws -> [String] {
        [Self.ip!, "netns", "exec", try name(role)]
    }

    /// The namespace of `role`.
    func name(_ role: String) throws -> String {
        guard let name = names[role] else { throw TestFailure("no namespace for \(role)") }
        return name
    }

    /// Kills what still runs in each namespace and deletes it. Safe to call again.
    func removeAll() {
        for name in names.values { Self.remove(name) }
        names.removeAll()
    }

    deinit { removeAll() }

    /// Runs `ip arguments`, throwing with its output when it fails.
    private func run(_ arguments: [String]) throws {
        let result = try ProgramRun.run(Self.ip!, arguments, timeout: 20)
        guard result.status == 0 else {
            throw TestFailure("ip \(arguments.joined(separator: " ")) failed: \(result.output)")
        }
    }

    /// Kills the processes in namespace `name` (only this test's programs run there) and deletes it.
    private static func remove(_ name: String) {
        guard let ip else { return }
        if let pids = try? ProgramRun.run(ip, ["netns", "pids", name], timeout: 20) {
            for pid in pids.output.split(whereSeparator: \.isWhitespace).compactMap({ Int32($0) }) {
                kill(pid, SIGKILL)
            }
        }
        _ = try? ProgramRun.run(ip, ["netns", "del", name], timeout: 20)
    }

    /// Deletes `rcrelay-<pid>-...` namespaces whose pid no longer runs.
    private static func removeLeftovers() {
        guard let ip, let list = try? ProgramRun.run(ip, ["netns", "list"], timeout: 20) else { return }
        for line in list.output.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            guard name.hasPrefix(prefix),
                let pid = Int32(name.dropFirst(prefix.count).split(separator: "-").first ?? "")
            else { continue }
            if pid != getpid(), kill(pid, 0) != 0, errno == ESRCH { remove(name) }
        }
    }
}
