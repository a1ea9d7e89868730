import RowCastSupport

/// The feed, row and applied-operation counts of each engine loop, and its feeds without
/// per-feed metric series, so the `rowcast_feeds`, `rowcast_rows` and
/// `rowcast_feed_series_omitted` gauges and systemd's `STATUS=` say the whole daemon's,
/// whichever loop refreshes them last.
final class LoopTotals: Sendable {
    /// One loop's counts, or their sums.
    struct Counts: Sendable, Equatable {
        /// Feeds served.
        var feeds = 0
        /// Rows in those feeds.
        var rows = 0
        /// Operations applied since the start.
        var applied: UInt64 = 0
    }

    private let counts: LockedValue<[Counts]>
    /// Each loop's feeds without series of their own (`FeedMetrics`).
    private let seriesOmitted: LockedValue<[Int]>

    /// Counts for `loops` loops, all zero.
    init(loops: Int) {
        counts = LockedValue(Array(repeating: Counts(), count: loops))
        seriesOmitted = LockedValue(Array(repeating: 0, count: loops))
    }

    /// Records how many of loop `index`'s feeds have no series of their own and returns the
    /// sum over every loop.
    func recordSeriesOmitted(loop index: Int, _ count: Int) -> Int {
        seriesOmitted.withLock { counts in
            counts[index] = count
            return counts.reduce(0, +)
        }
    }

    /// Records loop `index`'s feed and row counts and returns the sums over every loop.
    func record(loop index: Int, feeds: Int, rows: Int) -> (feeds: Int, rows: Int) {
        let sums = record(loop: index) {
            $0.feeds = feeds; $0.rows = rows
        }
        return (sums.feeds, sums.rows)
    }

    /// Records loop `index`'s counts and returns the sums over every loop.
    func record(loop index: Int, _ loopCounts: Counts) -> Counts {
        record(loop: index) { $0 = loopCounts }
    }

    private func record(loop index: Int, _ change: (inout Counts) -> Void) -> Counts {
        counts.withLock { counts in
            change(&counts[index])
            return counts.reduce(Counts()) {
                Counts(feeds: $0.feeds + $1.feeds, rows: $0.rows + $1.rows, applied: $0.applied &+ $1.applied)
            }
        }
    }
}
