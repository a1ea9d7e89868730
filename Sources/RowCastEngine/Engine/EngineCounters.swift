import RowCastWire

/// Running totals the `status` reply reports.
public struct EngineCounters: Sendable, Equatable {
    /// Messages received on either socket.
    public var received: UInt64 = 0
    /// Feed operations applied.
    public var applied: UInt64 = 0
    /// Messages or items refused with an error.
    public var rejected: UInt64 = 0
    /// The refusals by error code (`invalid_json`, `plugin_crashed`, ...); they add up to
    /// `rejected`. Bounded: error codes are a fixed set.
    public var rejectedByCode: [String: UInt64] = [:]
    /// Deltas published.
    public var published: UInt64 = 0
    /// Replies dropped: the client let `limits.client_reply_queue` replies pile up unread, or
    /// was gone (counted by the daemon, which sends them).
    public var dropped: UInt64 = 0

    /// All zero.
    public init() {}

    /// Counts one refusal with `code`.
    public mutating func countRejection(_ code: ErrorCode) {
        rejected += 1
        rejectedByCode[code.rawValue, default: 0] += 1
    }
}
