import CoreMetrics

/// A cluster node's metrics: its leases, the live nodes, and what it forwarded. Refreshed by
/// the loop from the coordinator's view (`Daemon.serveCluster`), at most every 250 ms; the
/// counters get the growth since the last refresh.
final class ClusterMetrics {
    private let partitions: Gauge
    private let nodes: Gauge
    private let acquired: Counter
    private let takenOver: Counter
    private let lost: Counter
    private let released: Counter
    private let storeFailures: Counter
    private let forwardedControl: Counter
    private let forwardedIngest: Counter
    private let forwardTimeouts: Counter
    private var seen = ClusterView.LeaseCounts()
    private var seenForwarded = (control: 0, ingest: 0, timedOut: 0)

    /// Metrics created through `factory`.
    init(factory: any MetricsFactory) {
        typealias Names = DaemonMetricNames
        partitions = Gauge(label: Names.clusterPartitions, factory: factory)
        nodes = Gauge(label: Names.clusterNodes, factory: factory)
        acquired = Counter(label: Names.clusterLeases, dimensions: [("event", "acquired")], factory: factory)
        takenOver = Counter(label: Names.clusterLeases, dimensions: [("event", "taken_over")], factory: factory)
        lost = Counter(label: Names.clusterLeases, dimensions: [("event", "lost")], factory: factory)
        released = Counter(label: Names.clusterLeases, dimensions: [("event", "released")], factory: factory)
        storeFailures = Counter(label: Names.clusterStoreFailures, factory: factory)
        forwardedControl = Counter(label: Names.clusterForwarded, dimensions: [("socket", "control")], factory: factory)
        forwardedIngest = Counter(label: Names.clusterForwarded, dimensions: [("socket", "ingest")], factory: factory)
        forwardTimeouts = Counter(label: Names.clusterForwardTimeouts, factory: factory)
    }

    /// Takes the forwarder's figures and, with `leases` (one engine loop of several records
    /// the node's), the view's.
    func record(_ view: ClusterView, forwarder: ClusterForwarder, leases: Bool = true) {
        if leases {
            partitions.record(view.held.count)
            nodes.record(view.nodes.count)
            let counts = view.counts
            acquired.increment(by: max(0, counts.acquired - seen.acquired))
            takenOver.increment(by: max(0, counts.takenOver - seen.takenOver))
            lost.increment(by: max(0, counts.lost - seen.lost))
            released.increment(by: max(0, counts.released - seen.released))
            storeFailures.increment(by: max(0, counts.failedRounds - seen.failedRounds))
            seen = counts
        }
        forwardedControl.increment(by: forwarder.forwardedControl - seenForwarded.control)
        forwardedIngest.increment(by: forwarder.forwardedIngest - seenForwarded.ingest)
        forwardTimeouts.increment(by: forwarder.timedOut - seenForwarded.timedOut)
        seenForwarded = (forwarder.forwardedControl, forwarder.forwardedIngest, forwarder.timedOut)
    }
}
