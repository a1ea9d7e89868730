/// How much of the store's delta log a start reads back: the engine's history limits, and the
/// age past which logged deltas are dropped.
public struct HistoryLimits: Sendable, Equatable {
    /// Deltas per feed (`limits.history_deltas`).
    public var deltas: Int
    /// Bytes over every feed (`limits.history_bytes`).
    public var bytes: Int
    /// Deltas logged longer ago are neither read nor kept.
    public var maximumAge: Duration

    /// Limits from their parts.
    public init(deltas: Int, bytes: Int, maximumAge: Duration) {
        self.deltas = deltas
        self.bytes = bytes
        self.maximumAge = maximumAge
    }

    /// The defaults: 1,000 deltas per feed, 64 MiB, 24 hours.
    public static let standard = HistoryLimits(deltas: 1000, bytes: 64 << 20, maximumAge: .seconds(24 * 60 * 60))

    /// The largest delta the log takes: a larger one is not logged (a `since` across it after a
    /// restart takes a snapshot), so no single delta can take the log's room.
    public static let largestLoggedDelta = 1 << 20
}
