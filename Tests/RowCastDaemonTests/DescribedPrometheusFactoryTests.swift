import CoreMetrics
import Prometheus
import RowCastDaemon
import RowCastHTTP
import Testing

/// The factory rowcastd creates its metrics through: each daemon's own registry, HELP on every
/// metric, and the buckets its description gives.
struct DescribedPrometheusFactoryTests {
    @Test("metrics made through swift-metrics land in the given registry with their HELP text")
    func helpText() {
        let registry = PrometheusCollectorRegistry()
        let factory = DescribedPrometheusFactory(registry: registry, descriptions: DaemonMetricNames.descriptions)
        Counter(label: DaemonMetricNames.received, factory: factory).increment(by: 3)
        Counter(label: DaemonMetricNames.rejected, dimensions: [("code", "invalid_json")], factory: factory).increment()
        Timer(label: DaemonMetricNames.commitDuration, factory: factory).recordMilliseconds(2)
        let text = registry.emitToString()
        #expect(text.contains("# HELP rowcast_items_received_total Requests received"))
        #expect(text.contains("# TYPE rowcast_items_received_total counter"))
        #expect(text.contains("rowcast_items_received_total 3"))
        #expect(text.contains("rowcast_items_rejected_total{code=\"invalid_json\"} 1"))
        #expect(text.contains("# TYPE rowcast_commit_duration_seconds histogram"))
        #expect(text.contains("rowcast_commit_duration_seconds_bucket{le=\"+Inf\"} 1"))
        // 2 ms falls in the 2.5 ms bucket and every one above it, not in the 1 ms one.
        let buckets = text.split(separator: "\n").filter { $0.hasPrefix("rowcast_commit_duration_seconds_bucket") }
        #expect(buckets.count == 17)
        #expect(buckets.filter { $0.hasSuffix(" 1") }.count == 12)
        #expect(text.contains("rowcast_commit_duration_seconds_count 1"))
    }

    @Test("two factories over two registries keep two daemons' metrics apart")
    func separateRegistries() {
        let first = PrometheusCollectorRegistry()
        let second = PrometheusCollectorRegistry()
        Counter(
            label: DaemonMetricNames.applied,
            factory: DescribedPrometheusFactory(registry: first, descriptions: DaemonMetricNames.descriptions)
        ).increment(by: 5)
        Counter(
            label: DaemonMetricNames.applied,
            factory: DescribedPrometheusFactory(registry: second, descriptions: DaemonMetricNames.descriptions)
        ).increment(by: 1)
        #expect(first.emitToString().contains("rowcast_items_applied_total 5"))
        #expect(second.emitToString().contains("rowcast_items_applied_total 1"))
    }

    @Test("every metric name follows the Prometheus conventions and has HELP")
    func names() {
        for description in DaemonMetricNames.descriptions {
            #expect(description.name.hasPrefix("rowcast_"))
            #expect(!description.help.isEmpty)
            if description.durationBuckets != nil { #expect(description.name.hasSuffix("_seconds")) }
        }
        let counters = [
            DaemonMetricNames.received, DaemonMetricNames.applied, DaemonMetricNames.rejected, DaemonMetricNames.deltas,
            DaemonMetricNames.publishedBytes, DaemonMetricNames.droppedReplies, DaemonMetricNames.pluginFaults,
        ]
        for name in counters { #expect(name.hasSuffix("_total")) }
    }
}
