import RowCastJSON

/// What confines a plugin host: the measures in force, best first, and the ones that could not
/// be applied with the reason. The host reports it in its hello; rowcastd adds its own part
/// (the process group, the cgroup), logs it, and shows it in `rowcast status`.
public struct HostConfinement: Sendable, Equatable {
    /// The measures in force, e.g. `seccomp`, `landlock ABI 7`, `network namespace`.
    public var measures: [String]
    /// The measures not in force, each with why, e.g. `seccomp: relaxed by plugin_unconfined`.
    public var gaps: [String]

    /// A confinement from its parts.
    public init(measures: [String] = [], gaps: [String] = []) {
        self.measures = measures
        self.gaps = gaps
    }

    /// The measure names, as the host and status spell them.
    public enum Measure {
        /// The seccomp filter (no new processes, no exec, no new sockets, no ptrace).
        public static let seccomp = "seccomp"
        /// The part of the seccomp filter that keeps children in the host's process group.
        public static let seccompProcessGroup = "seccomp (process group only)"
        /// Landlock at an ABI version (read-only files, no TCP, no signals out).
        public static func landlock(abi: Int) -> String { "landlock ABI \(abi)" }
        /// A fresh network namespace (no interface but a down loopback).
        public static let networkNamespace = "network namespace"
        /// `PR_SET_NO_NEW_PRIVS`.
        public static let noNewPrivileges = "no_new_privs"
        /// `RLIMIT_NPROC`, when the host runs as a user other than root.
        public static func processLimit(_ count: Int) -> String { "RLIMIT_NPROC \(count)" }
        /// `RLIMIT_AS` in MiB.
        public static func addressSpace(megabytes: Int) -> String { "RLIMIT_AS \(megabytes) MiB" }
        /// The user the host runs as.
        public static func user(_ name: String) -> String { "user \(name)" }
        /// `PR_SET_PDEATHSIG`: the host dies with rowcastd.
        public static let parentDeathSignal = "parent-death signal"
        /// A process group of its own, killed with the host.
        public static let processGroup = "process group"
    }

    /// Whether the kernel keeps the host from starting processes (seccomp in force).
    public var forbidsProcesses: Bool { measures.contains(Measure.seccomp) }

    /// `"seccomp, landlock ABI 7, ..."`.
    public var summary: String { measures.isEmpty ? "none" : measures.joined(separator: ", ") }

    /// `{"measures": [...], "gaps": [...]}`.
    public var json: JSONValue {
        ["measures": .array(measures.map(JSONValue.string)), "gaps": .array(gaps.map(JSONValue.string))]
    }

    /// The confinement in `json` (as ``json`` writes it); empty when it is missing.
    public init(json: JSONValue?) {
        self.init(
            measures: json?["measures"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            gaps: json?["gaps"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }
}
