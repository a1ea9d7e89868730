import RowCastJSON

/// What one plugin's host did: for `rowcast plugins` and `status`.
public struct HostStatistics: Sendable, Equatable {
    /// Where the host is.
    public enum State: String, Sendable {
        /// Serving.
        case running
        /// Being started.
        case starting
        /// Paused after faults in a row (`CrashLoopBreaker`): its calls get `plugin_unavailable`.
        case backoff
        /// Dead after a fault; restarted at the next call.
        case restarting
        /// Retired: its plugin was replaced or removed.
        case stopped
    }

    /// The last fault.
    public struct Fault: Sendable, Equatable {
        /// `plugin_crashed` or `plugin_timeout`.
        public var code: String
        /// What happened.
        public var reason: String
        /// The item in progress, when known.
        public var item: String?
        /// When, in milliseconds since the epoch.
        public var at: Int64

        /// `{"code","reason","item","at"}`.
        public var json: JSONValue {
            [
                "code": .string(code), "reason": .string(reason), "item": item.map(JSONValue.string) ?? .null,
                "at": .number(Double(at)),
            ]
        }
    }

    /// The host's pid while it runs.
    public var pid: Int32?
    /// Where it is.
    public var state = State.starting
    /// Restarts after faults.
    public var restarts = 0
    /// Calls answered.
    public var rendered = 0
    /// Crashes and timeouts.
    public var faults = 0
    /// The last crash or timeout.
    public var lastFault: Fault?
}
