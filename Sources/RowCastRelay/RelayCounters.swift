import RowCastSupport

/// What a relay's control side has done so far; read from any thread.
public final class RelayCounters: Sendable {
    /// The counts at one moment.
    public struct Counts: Sendable, Equatable {
        /// Requests sent on to rowcastd.
        public var forwarded = 0
        /// Requests answered by the relay itself with a refusal.
        public var refused = 0
        /// Replies from rowcastd handed to their clients.
        public var replies = 0
    }

    /// The counts, behind a lock: the forwarder's thread writes, any thread reads.
    private let counts = LockedValue(Counts())

    /// Zero counts.
    public init() {}

    /// Adds to the counts.
    func add(forwarded: Int = 0, refused: Int = 0, replies: Int = 0) {
        counts.withLock {
            $0.forwarded += forwarded
            $0.refused += refused
            $0.replies += replies
        }
    }

    /// The counts now.
    public func snapshot() -> Counts {
        counts.withLock { $0 }
    }
}
