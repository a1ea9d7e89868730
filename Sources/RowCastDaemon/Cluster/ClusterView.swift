import RowCastPostgres
import RowCastWire

/// The cluster as this node last read it from the shared store: the live nodes, who holds each
/// partition's lease, and this node's own partitions. For forwarding, `status` and metrics.
public struct ClusterView: Sendable {
    /// This node's name.
    public var node: String
    /// The nodes whose heartbeat is younger than a lease, by name.
    public var nodes: [ClusterNode] = []
    /// Every partition's lease, by partition number.
    public var leases: [PartitionLease] = []
    /// The partitions whose leases this node holds, with their fencing tokens.
    public var held: [Partition: Int64] = [:]
    /// The live nodes whose plugins differ from this node's (name and version of each plugin).
    public var pluginMismatches: [String] = []
    /// When this node last renewed its leases, read on this node's clock.
    public var lastRenewal: ContinuousClock.Instant?
    /// When `leases` were read, on this node's clock: a lease counts as held until its expiry
    /// as it stood then, however old the view (a view kept while the store is unreachable).
    public var readAt = ContinuousClock.now
    /// Why the last round with the store failed, while it does.
    public var storeFailure: String?

    /// Lease events since the start.
    public var counts = LeaseCounts()

    /// Lease events since the start, for the metrics.
    public struct LeaseCounts: Sendable {
        /// Leases taken (at start, after another node left or died, or when given one).
        public var acquired = 0
        /// Of those, leases taken from another node's expired lease (a takeover).
        public var takenOver = 0
        /// Leases lost to another node or to the store being unreachable.
        public var lost = 0
        /// Leases handed back because another node should own them.
        public var released = 0
        /// Rounds that could not reach the store.
        public var failedRounds = 0
    }

    /// An empty view for `node`.
    public init(node: String) { self.node = node }

    /// The node holding `partition`'s lease and its endpoints, when another live node does.
    public func owner(of partition: Partition) -> (node: String, endpoints: NodeEndpoints)? {
        holder(of: partition).flatMap { $0.node == node ? nil : $0 }
    }

    /// The live node holding `partition`'s lease (this one included) and its endpoints.
    public func holder(
        of partition: Partition, now: ContinuousClock.Instant = .now
    ) -> (node: String, endpoints: NodeEndpoints)? {
        guard partition.index < leases.count, let owner = leases[partition.index].owner,
            (leases[partition.index].expiresIn ?? .zero) > now - readAt,
            let record = nodes.first(where: { $0.name == owner }), let endpoints = NodeEndpoints(json: record.endpoints)
        else { return nil }
        return (owner, endpoints)
    }
}
