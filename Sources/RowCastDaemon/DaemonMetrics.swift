import CoreMetrics
import RowCastEngine
import RowCastPluginHosting
import ZeroMQ

/// rowcastd's metrics, kept cheap for a loop that applies a flood of items: nothing is recorded
/// per item. The engine's own counters are read once per pass and their growth added to the
/// metric counters (`flush`); histograms get one value per commit, batch or plugin round
/// trip; the feed and row gauges, and the largest feeds' own series (`FeedMetrics`), are
/// refreshed at most once a second.
///
/// Not `Sendable`: the loop thread alone uses it (the metric handles it writes to are
/// thread-safe, and `/metrics` reads them on the HTTP threads).
final class DaemonMetrics {
    private let factory: any MetricsFactory
    private let received: Counter
    private let applied: Counter
    private let deltas: Counter
    private let publishedBytes: Counter
    private let droppedReplies: Counter
    private let commitDuration: Timer
    private let commitBatch: Recorder
    private let publishLatency: Timer
    private let subscribers: Gauge
    private let feeds: Gauge
    private let rows: Gauge
    /// The largest feeds' own series.
    private let feedSeries: FeedMetrics
    private var rejected: [String: Counter] = [:]
    private var renderDurations: [String: Timer] = [:]
    private var faults: [String: Counter] = [:]
    /// The engine counters at the last flush.
    private var seen = EngineCounters()
    /// Bytes published since the last flush.
    private var pendingBytes = 0
    /// Connections accepted minus disconnected on the publish socket.
    private var connections = 0
    private var nextGaugeRefresh = ContinuousClock.now
    /// Where the engine loops' counts add up, and this loop's place, when rowcastd runs several.
    var loopTotals: (totals: LoopTotals, index: Int)?
    /// A cluster node's own metrics, made at its first refresh.
    private var cluster: ClusterMetrics?
    /// The PostgreSQL store's round trips so far, when the store is PostgreSQL; read at each
    /// gauge refresh.
    var storeRoundTrips: (() -> Int)?
    private var storeRoundTripCounter: Counter?
    private var seenRoundTrips = 0

    /// Metrics created through `factory`.
    init(factory: any MetricsFactory) {
        self.factory = factory
        typealias Names = DaemonMetricNames
        received = Counter(label: Names.received, factory: factory)
        applied = Counter(label: Names.applied, factory: factory)
        deltas = Counter(label: Names.deltas, factory: factory)
        publishedBytes = Counter(label: Names.publishedBytes, factory: factory)
        droppedReplies = Counter(label: Names.droppedReplies, factory: factory)
        commitDuration = Timer(label: Names.commitDuration, factory: factory)
        commitBatch = Recorder(label: Names.commitBatch, factory: factory)
        publishLatency = Timer(label: Names.publishLatency, factory: factory)
        subscribers = Gauge(label: Names.subscribers, factory: factory)
        feeds = Gauge(label: Names.feeds, factory: factory)
        rows = Gauge(label: Names.rows, factory: factory)
        feedSeries = FeedMetrics(factory: factory)
        subscribers.record(0)
        feeds.record(0)
        rows.record(0)
    }

    /// A cluster node's leases, nodes and forwarding (`ClusterMetrics`); the leases and nodes
    /// only with `leases` (of several engine loops, the first records them).
    func recordCluster(_ view: ClusterView, forwarder: ClusterForwarder, leases: Bool = true) {
        if cluster == nil { cluster = ClusterMetrics(factory: factory) }
        cluster?.record(view, forwarder: forwarder, leases: leases)
    }

    /// Notes bytes sent on the publish socket (added to the counter at the next flush).
    func countPublished(bytes: Int) {
        pendingBytes &+= bytes
    }

    /// A batch's deltas went out `latency` after its first message was read.
    func recordPublishLatency(_ latency: Duration) {
        publishLatency.recordNanoseconds(Self.nanoseconds(latency))
    }

    /// One commit: how long it took, how many messages it carried.
    func recordCommit(duration: Duration, messages: Int) {
        commitDuration.recordNanoseconds(Self.nanoseconds(duration))
        commitBatch.record(messages)
    }

    /// What the plugin hosts report: round trips and faults.
    var pluginObserver: PluginHostObserver {
        PluginHostObserver(
            rendered: { [weak self] plugin, duration, _ in
                guard let self else { return }
                let timer =
                    renderDurations[plugin]
                    ?? {
                        let timer = Timer(
                            label: DaemonMetricNames.renderDuration, dimensions: [("plugin", plugin)], factory: factory)
                        renderDurations[plugin] = timer
                        return timer
                    }()
                timer.recordNanoseconds(Self.nanoseconds(duration))
            },
            faulted: { [weak self] plugin, kind in
                guard let self else { return }
                let word = kind == .timeout ? "timeout" : "crash"
                let key = plugin + "\u{0}" + word
                let counter =
                    faults[key]
                    ?? {
                        let counter = Counter(
                            label: DaemonMetricNames.pluginFaults, dimensions: [("plugin", plugin), ("kind", word)],
                            factory: factory)
                        faults[key] = counter
                        return counter
                    }()
                counter.increment()
            }
        )
    }

    /// Reads the publish socket's monitor events: accepted and disconnected connections.
    func drain(_ monitor: SocketMonitor) {
        var changed = false
        while let event = try? monitor.nextEvent() {
            if event.kind == .accepted { connections += 1; changed = true }
            if event.kind == .disconnected { connections = max(0, connections - 1); changed = true }
        }
        if changed { subscribers.record(connections) }
    }

    /// Once per pass: adds what the engine counted since the last flush, the bytes published,
    /// and (at most once a second) the feed and row gauges.
    func flush(engine: Engine, now: ContinuousClock.Instant) {
        let counters = engine.counters
        if counters.received != seen.received { received.increment(by: Int64(counters.received &- seen.received)) }
        if counters.applied != seen.applied { applied.increment(by: Int64(counters.applied &- seen.applied)) }
        if counters.published != seen.published { deltas.increment(by: Int64(counters.published &- seen.published)) }
        if counters.dropped != seen.dropped { droppedReplies.increment(by: Int64(counters.dropped &- seen.dropped)) }
        if counters.rejected != seen.rejected {
            for (code, count) in counters.rejectedByCode where count != seen.rejectedByCode[code] {
                let counter =
                    rejected[code]
                    ?? {
                        let counter = Counter(
                            label: DaemonMetricNames.rejected, dimensions: [("code", code)], factory: factory)
                        rejected[code] = counter
                        return counter
                    }()
                counter.increment(by: Int64(count &- (seen.rejectedByCode[code] ?? 0)))
            }
        }
        seen = counters
        if pendingBytes > 0 {
            publishedBytes.increment(by: Int64(pendingBytes))
            pendingBytes = 0
        }
        if now >= nextGaugeRefresh {
            nextGaugeRefresh = now + .seconds(1)
            let rowCount = engine.feeds.values.reduce(0) { $0 + $1.rowCount }
            if let (totals, index) = loopTotals {
                let sums = totals.record(loop: index, feeds: engine.feeds.count, rows: rowCount)
                feeds.record(sums.feeds)
                rows.record(sums.rows)
            } else {
                feeds.record(engine.feeds.count)
                rows.record(rowCount)
            }
            if let (totals, index) = loopTotals {
                feedSeries.refresh(feeds: engine.feeds) { totals.recordSeriesOmitted(loop: index, $0) }
            } else {
                feedSeries.refresh(feeds: engine.feeds)
            }
            if let storeRoundTrips {
                let total = storeRoundTrips()
                let counter =
                    storeRoundTripCounter ?? Counter(label: DaemonMetricNames.storeRoundTrips, factory: factory)
                storeRoundTripCounter = counter
                counter.increment(by: Int64(max(0, total - seenRoundTrips)))
                seenRoundTrips = total
            }
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
