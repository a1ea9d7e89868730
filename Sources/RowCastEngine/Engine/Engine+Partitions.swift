import RowCastWire

/// Partitions taken over and given up at run time, as a cluster node's leases move
/// (docs/OPERATIONS.md, "Cluster"). `DurableEngine.adopt(_:)` loads a partition's feeds from
/// the store; `release(partitions:)` forgets them, leaving the store as it is.
extension Engine {
    /// Stops serving `partitions`: their feeds, quarantined items and action events leave the
    /// engine, and nothing of it is recorded for the store, which keeps them for the node that
    /// serves them next. Call between batches, with every commit finished.
    public func release(partitions: Set<Partition>) {
        guard !partitions.isEmpty else { return }
        let leaving = feeds.keys.filter { partitions.contains(Partition(feed: $0)) }
        for name in leaving { discardFeed(named: name) }
        quarantine.forget { partitions.contains(Partition(feed: $0)) }
        actionEvents.forget { partitions.contains(Partition(feed: $0)) }
        servedPartitions = (servedPartitions ?? Set(Partition.all)).subtracting(partitions)
        if !leaving.isEmpty {
            logger.info(
                "partitions released",
                metadata: ["partitions": "\(partitions.count)", "feeds": "\(leaving.count)"])
        }
    }
}
