/// Running totals the `status` reply reports.
public struct EngineCounters: Sendable, Equatable {
    /// Messages received on either socket.
    public var received: UInt64 = 0
    /// Feed operations applied.
    public var applied: UInt64 = 0
    /// Messages or items refused with an error.
    public var rejected: UInt64 = 0
    /// Deltas published.
    public var published: UInt64 = 0
    /// Replies dropped: the client let `limits.client_reply_queue` replies pile up unread, or
    /// was gone (counted by the daemon, which sends them).
    public var dropped: UInt64 = 0

    /// All zero.
    public init() {}
}
