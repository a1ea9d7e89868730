import RowCastClient
import RowCastKit

/// What one feed's hub knows, as a pure value: the replica it follows, its recent deltas and
/// its connections. Each change returns nothing to do: it offers the messages to the
/// connections itself (``ConnectionOutbox/offer(_:)`` never waits) and drops those that
/// overflowed. Kept behind the hub's lock.
struct FeedStreamState {
    /// The feed.
    let feed: String
    /// The replica, `nil` until the first snapshot.
    private(set) var replica: FeedReplica?
    /// The snapshot message of ``replica``, made when first needed.
    private var snapshotText: String?
    /// The recent deltas, for `since`.
    private(set) var history: DeltaHistory
    /// The connections, by id.
    private(set) var connections: [Int: ConnectionOutbox] = [:]
    /// The id the next connection gets.
    private var nextID = 0
    /// How many connections were closed because their queue overflowed.
    private(set) var overflowCount = 0

    /// A state with no replica yet, keeping `historyLimit` deltas.
    init(feed: String, historyLimit: Int) {
        self.feed = feed
        history = DeltaHistory(epoch: nil, seq: 0, limit: historyLimit)
    }

    /// Adds a connection and queues its opening: nothing before the first snapshot (the
    /// snapshot then comes to everyone); else the deltas after `resume` when the history
    /// covers them, or the snapshot; then the position.
    mutating func attach(_ outbox: ConnectionOutbox, resume: ResumePoint?) -> Int {
        let id = nextID
        nextID += 1
        if let replica {
            // The history restarts at every snapshot, so it is of the replica's epoch.
            var opening: [String]
            if let resume, let deltas = history.deltas(after: resume.seq, epoch: resume.epoch) {
                opening = deltas
            } else {
                opening = [currentSnapshot()]
            }
            opening.append(StreamMessages.position(feed: feed, epoch: replica.epoch, seq: replica.seq))
            for text in opening where !outbox.offer(text) {
                overflowCount += 1
                return id  // overflowed at once: not kept
            }
        }
        connections[id] = outbox
        return id
    }

    /// Removes a connection (its writer ended); finishes its queue.
    mutating func detach(_ id: Int) {
        connections.removeValue(forKey: id)?.finish()
    }

    /// The replica was loaded from a snapshot (first, or after a resync): everyone gets it.
    mutating func load(_ loaded: FeedReplica) {
        replica = loaded
        snapshotText = nil
        history.restart(epoch: loaded.epoch, seq: loaded.seq)
        broadcast(currentSnapshot())
    }

    /// The replica applied `delta` (its text as published): everyone gets the text.
    mutating func apply(_ updated: FeedReplica, deltaText: String) {
        replica = updated
        snapshotText = nil
        history.append(deltaText, seq: updated.seq, epoch: updated.epoch)
        broadcast(deltaText)
    }

    /// Sends `text` (an action event, a position) to everyone.
    mutating func broadcast(_ text: String) {
        var overflowed: [Int] = []
        for (id, outbox) in connections where !outbox.offer(text) { overflowed.append(id) }
        for id in overflowed {
            connections.removeValue(forKey: id)
            overflowCount += 1
        }
    }

    /// The position message of the replica, or `nil` before the first snapshot.
    var positionText: String? {
        replica.map { StreamMessages.position(feed: feed, epoch: $0.epoch, seq: $0.seq) }
    }

    /// Ends every connection's queue (the gateway stops).
    mutating func finishAll() {
        for outbox in connections.values { outbox.finish() }
        connections.removeAll()
    }

    /// The snapshot message, made once per seq.
    private mutating func currentSnapshot() -> String {
        if let snapshotText { return snapshotText }
        let text = replica.map(StreamMessages.snapshot) ?? StreamMessages.snapshot(FeedReplica(feed: feed))
        snapshotText = text
        return text
    }
}
