import CoreMetrics
import Prometheus

/// A swift-metrics factory that creates its metrics in one `PrometheusCollectorRegistry`,
/// with the HELP text and buckets its `descriptions` give (swift-prometheus's own factory
/// writes no HELP). Each daemon gets a registry of its own through it, so several daemons in
/// one process (tests) do not share metrics and `MetricsSystem.bootstrap` is not needed.
public struct DescribedPrometheusFactory: MetricsFactory {
    /// Where the metrics live; `/metrics` renders it.
    public let registry: PrometheusCollectorRegistry
    private let descriptions: [String: MetricDescription]
    /// Buckets of a timer that has no description (seconds: 100 µs to 10 s).
    static let defaultDurationBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
        .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500),
        .seconds(1), .seconds(2.5), .seconds(10),
    ]
    /// Buckets of a recorder that has no description.
    static let defaultValueBuckets: [Double] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000]

    /// A factory creating metrics in `registry`, described by `descriptions`.
    public init(registry: PrometheusCollectorRegistry, descriptions: [MetricDescription]) {
        self.registry = registry
        self.descriptions = Dictionary(descriptions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The name and HELP of `label` (no HELP line for a metric without a description).
    private func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: descriptions[label]?.help ?? "")
    }

    /// A counter (`_total`) with its HELP.
    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    /// A counter of fractional amounts.
    public func makeFloatingPointCounter(
        label: String, dimensions: [(String, String)]
    ) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    /// A gauge (`aggregate: false`) or a value histogram.
    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        let buckets = descriptions[label]?.valueBuckets ?? Self.defaultValueBuckets
        return registry.makeValueHistogram(descriptor: descriptor(label), labels: dimensions, buckets: buckets)
    }

    /// A gauge.
    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    /// A duration histogram, in seconds.
    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let buckets = descriptions[label]?.durationBuckets ?? Self.defaultDurationBuckets
        return registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions, buckets: buckets)
    }

    /// Removes a counter from the registry.
    public func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    /// Removes a fractional counter from the registry.
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    /// Removes a gauge or histogram from the registry.
    public func destroyRecorder(_ handler: any RecorderHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
        if let histogram = handler as? ValueHistogram { registry.unregisterValueHistogram(histogram) }
    }

    /// Removes a gauge from the registry.
    public func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    /// Removes a duration histogram from the registry.
    public func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}
