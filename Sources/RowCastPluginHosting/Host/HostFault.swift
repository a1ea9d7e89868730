/// Why a plugin host stopped serving in the middle of a batch.
public struct HostFault: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of fault it was.
    public enum Kind: String, Sendable {
        /// The host died (a signal, abort, exit) or broke the channel.
        case crashed = "plugin_crashed"
        /// A callback ran past the deadline; the host was killed.
        case timeout = "plugin_timeout"
        /// The call was not sent: the plugin is paused after crashing or hanging again and
        /// again (`CrashLoopBreaker`).
        case unavailable = "plugin_unavailable"
    }

    /// Crash, timeout, or a pause.
    public let kind: Kind
    /// What happened, e.g. `killed by signal 11 (SIGSEGV)`.
    public let reason: String

    /// A fault of `kind` for `reason`.
    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }
}
