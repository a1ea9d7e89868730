import RowCastSupport

/// The feed and row counts of each engine loop, so the `rowcast_feeds` and `rowcast_rows`
/// gauges say the whole daemon's, whichever loop refreshes them last.
final class LoopTotals: Sendable {
    private let counts: LockedValue<[(feeds: Int, rows: Int)]>

    /// Counts for `loops` loops, all zero.
    init(loops: Int) {
        counts = LockedValue(Array(repeating: (0, 0), count: loops))
    }

    /// Records loop `index`'s counts and returns the sums over every loop.
    func record(loop index: Int, feeds: Int, rows: Int) -> (feeds: Int, rows: Int) {
        counts.withLock { counts in
            counts[index] = (feeds, rows)
            return counts.reduce((0, 0)) { ($0.0 + $1.feeds, $0.1 + $1.rows) }
        }
    }
}
