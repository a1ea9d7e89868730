import RowCastWire

/// A cluster node's partitions, taken over and given up while it runs (docs/OPERATIONS.md,
/// "Cluster"). Both run between batches with nothing held in the pipeline (`flush` first).
extension DurableEngine {
    /// Loads the feeds of `partitions` as the store holds them (committed by whichever node
    /// served them last) and serves them from now on: each continues its seq in its epoch, as
    /// at a start, unless its records are damaged or its rows were drawn by another renderer.
    /// The answers other nodes remembered join the ledger, so a retry of a request another node
    /// applied gets its first answer. Returns the error events to publish.
    public func adopt(_ partitions: Set<Partition>) throws(StoreError) -> [Publication] {
        precondition(!hasHeldOutputs, "DurableEngine.adopt while pipelined batches are held")
        guard !partitions.isEmpty else { return [] }
        let state = try store.load(partitions: partitions)
        for record in state.renderers {
            recordedRenderers[RendererKey(kind: record.kind, type: record.type)] = record.identity
        }
        var feeds = state.feeds.filter { partitions.contains(Partition(feed: $0.name)) }
        var commit = StoreCommit()
        var renewed: Set<String> = []
        for index in feeds.indices {
            guard let reason = newEpochReason(feeds[index], continuity: .continued) else { continue }
            renew(&feeds[index].epoch, feed: feeds[index].name, seq: feeds[index].seq, reason: reason, into: &commit)
            feeds[index].history = []
            renewed.insert(feeds[index].name)
        }
        engine.ledger.merge(state.ledger)
        engine.actionEvents.adopt(state.events.filter { partitions.contains(Partition(feed: $0.feed)) })
        engine.quarantine.adopt(state.quarantine.filter { partitions.contains(Partition(feed: $0.feed)) })
        engine.servedPartitions = (engine.servedPartitions ?? []).union(partitions)
        var unreadable: [DamagedItem] = []
        let reports = engine.restore(feeds, unreadable: &unreadable, staleTypes: staleTypes(in: feeds))
        renewEpochs(ofFeedsWith: unreadable, renewed: &renewed, into: &commit)
        commit.damagedItems = feeds.flatMap { $0.damaged.filter { !$0.known } } + unreadable
        commit.feeds = engine.takeChanges()
        commit.quarantine = engine.quarantine.takeChanges()
        var noted: Set<RendererKey> = []
        for feed in feeds {
            for section in feed.sections {
                if let type = section.type { noteRenderer(.header, type, into: &commit, noted: &noted) }
            }
        }
        if !commit.isEmpty { try store.commit(commit) }
        logger.info(
            "partitions taken over",
            metadata: [
                "partitions": "\(partitions.count)", "feeds": "\(feeds.count)",
                "items": "\(feeds.reduce(0) { $0 + $1.items.count })", "new_epochs": "\(renewed.count)",
            ])
        return reports
    }

    /// Stops serving `partitions` (`Engine.release(partitions:)`); the store keeps their feeds
    /// for the node that takes them over.
    public func release(_ partitions: Set<Partition>) {
        precondition(!hasHeldOutputs, "DurableEngine.release while pipelined batches are held")
        engine.release(partitions: partitions)
        store.forget(partitions: partitions)
        // A rollback still to be read back leaves their feeds to the node that serves them now.
        if let pending = pendingRollBack {
            pendingRollBack?.feeds = pending.feeds.filter { !partitions.contains(Partition(feed: $0)) }
        }
    }
}
