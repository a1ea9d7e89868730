import CoreMetrics
import RowCastEngine

/// Per-feed series in rowcastd's metrics, for the largest feeds only (of each engine loop):
/// `rowcast_feed_rows` and `rowcast_feed_deltas_total`, labelled `feed`, for at most `limit`
/// feeds, those with the most rows (chosen again every `reselectEvery` refreshes; a feed that
/// leaves the set loses its series). `rowcast_feed_series_omitted` counts the feeds without
/// series, so a dashboard knows the picture is partial. The bound keeps a daemon with 100,000
/// feeds from exporting 200,000 series.
///
/// Not `Sendable`: the loop thread alone refreshes it (through `DaemonMetrics`).
final class FeedMetrics {
    /// The series of one feed, and where its seq stood at the last refresh.
    private struct Series {
        let rows: Gauge
        let deltas: Counter
        var seq: UInt64
        var epoch: String
    }

    /// The most feeds with series of their own.
    static let limit = 50
    /// Refreshes (about a second apart) between two choices of the feeds with series.
    static let reselectEvery = 10

    private let factory: any MetricsFactory
    private let omitted: Gauge
    private var series: [String: Series] = [:]
    private var refreshes = 0

    /// Series created through `factory`.
    init(factory: any MetricsFactory) {
        self.factory = factory
        omitted = Gauge(label: DaemonMetricNames.feedSeriesOmitted, factory: factory)
        omitted.record(0)
    }

    /// Records each chosen feed's rows and the deltas it published since the last refresh (its
    /// seq's growth; a new epoch counts from 0), choosing the feeds again when due, or when
    /// there is room for feeds that have no series yet. `omittedTotal` turns the count of
    /// `feeds` without series into the whole daemon's (the sum over its engine loops).
    func refresh<Measured: FeedMeasure>(feeds: [String: Measured], omittedTotal: (Int) -> Int = { $0 }) {
        let live = series.keys.count { feeds[$0] != nil }
        let room = live < Self.limit && feeds.count > live
        if room || refreshes % Self.reselectEvery == 0 { choose(from: feeds) }
        refreshes &+= 1
        for (name, var entry) in series {
            guard let feed = feeds[name] else { continue }  // dropped: chosen out at the next choice
            entry.rows.record(feed.rowCount)
            let grown = feed.epoch == entry.epoch && feed.seq >= entry.seq ? feed.seq - entry.seq : feed.seq
            if grown > 0 { entry.deltas.increment(by: Int64(grown)) }
            entry.seq = feed.seq
            entry.epoch = feed.epoch
            series[name] = entry
        }
        omitted.record(omittedTotal(max(0, feeds.count - series.keys.count { feeds[$0] != nil })))
    }

    /// Keeps series for the `limit` feeds with the most rows (ties: by name), and drops the
    /// others' series.
    private func choose<Measured: FeedMeasure>(from feeds: [String: Measured]) {
        let chosen = feeds.map { (name: $0.key, rows: $0.value.rowCount) }
            .sorted { $0.rows != $1.rows ? $0.rows > $1.rows : $0.name < $1.name }
            .prefix(Self.limit)
        let names = Set(chosen.map(\.name))
        for (name, entry) in series where !names.contains(name) {
            entry.rows.destroy()
            entry.deltas.destroy()
            series[name] = nil
        }
        for (name, _) in chosen where series[name] == nil {
            guard let feed = feeds[name] else { continue }
            let dimensions = [("feed", name)]
            series[name] = Series(
                rows: Gauge(label: DaemonMetricNames.feedRows, dimensions: dimensions, factory: factory),
                deltas: Counter(label: DaemonMetricNames.feedDeltas, dimensions: dimensions, factory: factory),
                seq: feed.seq, epoch: feed.epoch)
        }
    }
}

/// What `FeedMetrics` reads of a feed.
protocol FeedMeasure {
    /// Rows held.
    var rowCount: Int { get }
    /// The seq of its last delta.
    var seq: UInt64 { get }
    /// Its history's epoch.
    var epoch: String { get }
}

extension Feed: FeedMeasure {}
