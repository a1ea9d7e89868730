/// What the exporter needs to know of a metric beyond its name: the HELP line, and a
/// histogram's buckets.
public struct MetricDescription: Sendable, Equatable {
    /// The metric's name (`rowcast_items_received_total`).
    public var name: String
    /// The HELP text.
    public var help: String
    /// The bucket bounds of a duration histogram (a swift-metrics `Timer`), if it is one.
    public var durationBuckets: [Duration]?
    /// The bucket bounds of a value histogram (an aggregating `Recorder`), if it is one.
    public var valueBuckets: [Double]?

    /// A description of `name`.
    public init(_ name: String, help: String, durationBuckets: [Duration]? = nil, valueBuckets: [Double]? = nil) {
        self.name = name
        self.help = help
        self.durationBuckets = durationBuckets
        self.valueBuckets = valueBuckets
    }
}
