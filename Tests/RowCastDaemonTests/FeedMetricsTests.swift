import CoreMetrics
import Prometheus
@testable import RowCastDaemon
import RowCastHTTP
import Testing

/// Per-feed series for the largest feeds only, with the rest counted as omitted.
struct FeedMetricsTests {
    struct Measured: FeedMeasure {
        var rowCount: Int
        var seq: UInt64
        var epoch = "e1"
    }

    func lines(_ registry: PrometheusCollectorRegistry, _ prefix: String) -> [Substring] {
        registry.emitToString().split(separator: "\n").filter { $0.hasPrefix(prefix) }
    }

    @Test("the 50 feeds with the most rows get series; the others are counted; deltas follow seq, across epochs")
    func boundedSeries() {
        let registry = PrometheusCollectorRegistry()
        let metrics = FeedMetrics(
            factory: DescribedPrometheusFactory(registry: registry, descriptions: DaemonMetricNames.descriptions))
        var feeds = Dictionary(
            uniqueKeysWithValues: (0..<80).map { ("f\($0)", Measured(rowCount: $0, seq: UInt64($0))) })
        metrics.refresh(feeds: feeds)
        #expect(lines(registry, "rowcast_feed_rows{").count == 50)
        #expect(lines(registry, "rowcast_feed_rows{feed=\"f79\"} 79.0").count == 1)
        #expect(lines(registry, "rowcast_feed_rows{feed=\"f29\"}").isEmpty)
        #expect(lines(registry, "rowcast_feed_series_omitted 30.0").count == 1)

        feeds["f79"]?.seq = 85
        feeds["f78"] = Measured(rowCount: 78, seq: 2, epoch: "e2")
        metrics.refresh(feeds: feeds)
        #expect(lines(registry, "rowcast_feed_deltas_total{feed=\"f79\"} 6").count == 1)
        #expect(lines(registry, "rowcast_feed_deltas_total{feed=\"f78\"} 2").count == 1)

        // A feed that grows into the 50 gets its series at the next choice; the smallest loses its.
        feeds["f0"]?.rowCount = 1000
        for _ in 0..<FeedMetrics.reselectEvery { metrics.refresh(feeds: feeds) }
        #expect(lines(registry, "rowcast_feed_rows{feed=\"f0\"} 1000.0").count == 1)
        #expect(lines(registry, "rowcast_feed_rows{feed=\"f30\"}").isEmpty)
        #expect(lines(registry, "rowcast_feed_rows{").count == 50)
    }

    @Test("with several engine loops, the omitted feeds are those of every loop, whichever refreshed last")
    func omittedOverLoops() {
        let registry = PrometheusCollectorRegistry()
        let factory = DescribedPrometheusFactory(registry: registry, descriptions: DaemonMetricNames.descriptions)
        let totals = LoopTotals(loops: 2)
        let loops = [FeedMetrics(factory: factory), FeedMetrics(factory: factory)]
        // Loop 0 has 80 feeds (30 without series), loop 1 has 60 (10 without).
        let feeds = [80, 60].map { count in
            Dictionary(uniqueKeysWithValues: (0..<count).map { ("f\(count)-\($0)", Measured(rowCount: $0, seq: 1)) })
        }
        for order in [[0, 1], [1, 0]] {
            for index in order {
                loops[index].refresh(feeds: feeds[index]) { totals.recordSeriesOmitted(loop: index, $0) }
            }
            #expect(lines(registry, "rowcast_feed_series_omitted 40.0").count == 1, "refreshed in the order \(order)")
        }
        // A loop whose feeds all fit leaves only the other's.
        loops[0].refresh(feeds: [String: Measured]()) { totals.recordSeriesOmitted(loop: 0, $0) }
        #expect(lines(registry, "rowcast_feed_series_omitted 10.0").count == 1)
    }
}
