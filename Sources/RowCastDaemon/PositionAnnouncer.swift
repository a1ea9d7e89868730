import RowCastEngine

/// Decides when each feed's `position` event goes out (docs/PROTOCOL.md, "Positions"): at most
/// once per heartbeat interval for each feed that published deltas since its last one, so a
/// replica that missed the last delta learns it within one interval; and at once to a
/// subscription of the feed's own topic, so a replica that reconnects to a restarted rowcastd
/// learns of a new epoch without waiting for a change.
///
/// Positions are those of deltas already published (the batch's output once committed), never
/// the engine's, which may be ahead with batches not yet committed.
final class PositionAnnouncer {
    private var published: [String: FeedPosition] = [:]
    private var unannounced: [String] = []
    private var pending: Set<String> = []
    private var lastTick = ContinuousClock.now

    /// Takes `positions` as where the feeds stand (at start, after a reload), all announced.
    func reset(to positions: [FeedPosition]) {
        published = Dictionary(positions.map { ($0.feed, $0) }, uniquingKeysWith: { $1 })
        unannounced.removeAll()
        pending.removeAll()
    }

    /// Forgets the feeds for which `leaving` holds (a cluster node gave their partitions up):
    /// the node that serves them now announces them.
    func forget(feeds leaving: (String) -> Bool) {
        published = published.filter { !leaving($0.key) }
        unannounced.removeAll { leaving($0) }
        pending = pending.filter { !leaving($0) }
    }

    /// Records the positions of deltas just published; they are announced at the next tick.
    func record(_ positions: [FeedPosition]) {
        for position in positions {
            published[position.feed] = position
            if pending.insert(position.feed).inserted { unannounced.append(position.feed) }
        }
    }

    /// When the next tick is, if anything waits to be announced.
    func nextTick(interval: Duration) -> ContinuousClock.Instant? {
        unannounced.isEmpty ? nil : lastTick + interval
    }

    /// The position events due at `now` (empty before the interval has passed since the last
    /// tick); forgets them.
    func due(at now: ContinuousClock.Instant, interval: Duration) -> [Publication] {
        guard now - lastTick >= interval else { return [] }
        lastTick = now
        defer {
            unannounced.removeAll(keepingCapacity: true)
            pending.removeAll(keepingCapacity: true)
        }
        return unannounced.compactMap { published[$0]?.publication }
    }

    /// The position event for a subscription to `prefix`, when it is exactly one feed's topic
    /// (`rows.<feed>\0`) and that feed has a position.
    func announcement(forSubscription prefix: [UInt8]) -> Publication? {
        let head = Array("rows.".utf8)
        guard prefix.count > head.count + 1, prefix.last == 0, prefix.starts(with: head) else { return nil }
        let feed = String(decoding: prefix[head.count..<(prefix.count - 1)], as: UTF8.self)
        return published[feed]?.publication
    }
}
