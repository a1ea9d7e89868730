import RowCastClient
import RowCastJSON

/// What one feed's hub shares with its connections, as a pure value: where the replica
/// stands, its snapshot message when one was made, its recent deltas and the connections.
/// Each change offers its messages to the connections itself (``ConnectionOutbox/offer(_:)``
/// never waits) and drops those that overflowed. Kept behind the hub's lock.
///
/// It holds no copy of the replica (a copy kept would make the session copy the rows each
/// delta changes): a snapshot message is made by the hub's thread, outside the lock, when a
/// connection needs one (``needsSnapshot``), and handed in with ``deliver(snapshot:seq:epoch:)``.
struct FeedStreamState {
    /// The feed.
    let feed: String
    /// The replica's seq and epoch, `nil` until the first snapshot.
    private(set) var position: (seq: Int, epoch: String?)?
    /// The snapshot message at ``position``, when one was made since the last delta.
    private var snapshotText: String?
    /// The recent deltas, for `since`.
    private(set) var history: DeltaHistory
    /// The connections, by id.
    private(set) var connections: [Int: ConnectionOutbox] = [:]
    /// Connections whose queue is shared with other feeds' (one WebSocket): not ended here.
    private var sharedOutboxes: Set<Int> = []
    /// Connections waiting for a snapshot: they get no delta before it.
    private var awaiting: Set<Int> = []
    /// The id the next connection gets.
    private var nextID = 0
    /// How many connections were closed because their queue overflowed.
    private(set) var overflowCount = 0

    /// A state with no replica yet, keeping `historyLimit` deltas.
    init(feed: String, historyLimit: Int) {
        self.feed = feed
        history = DeltaHistory(epoch: nil, seq: 0, limit: historyLimit)
    }

    /// Whether a connection waits for a snapshot the hub's thread should make.
    var needsSnapshot: Bool { position != nil && !awaiting.isEmpty }

    /// Whether the replica holds a feed that exists (it has an epoch).
    var feedExists: Bool { position?.epoch != nil }

    /// Adds a connection and queues its opening: the deltas after `resume` when the history
    /// covers them, else the snapshot (at once when one is made, otherwise once the hub's
    /// thread made it); then the position.
    mutating func attach(_ outbox: ConnectionOutbox, resume: ResumePoint?, ownsOutbox: Bool = true) -> Int {
        let id = nextID
        nextID += 1
        connections[id] = outbox
        if !ownsOutbox { sharedOutboxes.insert(id) }
        guard let position else {
            awaiting.insert(id)
            return id
        }
        // The history restarts at every snapshot, so it is of the replica's epoch.
        if let resume, let deltas = history.deltas(after: resume.seq, epoch: resume.epoch) {
            offer(deltas + [positionText(position)], to: id)
        } else if let snapshotText {
            offer([snapshotText, positionText(position)], to: id)
        } else {
            awaiting.insert(id)
        }
        return id
    }

    /// Removes a connection (its writer ended); finishes its queue unless it is shared.
    mutating func detach(_ id: Int) {
        awaiting.remove(id)
        let outbox = connections.removeValue(forKey: id)
        if sharedOutboxes.remove(id) == nil { outbox?.finish() }
    }

    /// The replica was loaded from a snapshot (first, or after a resync) at `seq` of `epoch`:
    /// everyone gets `snapshot` (made by the hub when it had connections; otherwise the
    /// connections that came meanwhile wait for one).
    mutating func load(seq: Int, epoch: String?, snapshot: String?) {
        position = (seq, epoch)
        snapshotText = snapshot
        history.restart(epoch: epoch, seq: seq)
        guard let snapshot else {
            awaiting.formUnion(connections.keys)
            return
        }
        awaiting.removeAll()
        broadcast(snapshot)
    }

    /// A snapshot message the hub made at `seq` of `epoch` for the connections waiting for
    /// one; ignored when the replica has moved on since (they keep waiting).
    mutating func deliver(snapshot: String, seq: Int, epoch: String?) {
        guard let position, position.seq == seq, position.epoch == epoch else { return }
        snapshotText = snapshot
        let waiting = awaiting
        awaiting.removeAll()
        for id in waiting { offer([snapshot, positionText(position)], to: id) }
    }

    /// The replica applied the delta `deltaText` and is now at `seq` of `epoch`: everyone not
    /// waiting for a snapshot gets the text.
    mutating func apply(seq: Int, epoch: String?, deltaText: String) {
        position = (seq, epoch)
        snapshotText = nil
        history.append(deltaText, seq: seq, epoch: epoch)
        broadcast(deltaText)
    }

    /// Sends `text` (a delta, an action event, a position) to everyone not waiting for a
    /// snapshot.
    mutating func broadcast(_ text: String) {
        var overflowed: [Int] = []
        for (id, outbox) in connections where !awaiting.contains(id) && !outbox.offer(text) { overflowed.append(id) }
        for id in overflowed { dropOverflowed(id) }
    }

    /// The position message, or `nil` before the first snapshot.
    var positionText: String? { position.map(positionText) }

    /// Ends every connection's queue (the gateway stops).
    mutating func finishAll() {
        for outbox in connections.values { outbox.finish() }
        connections.removeAll()
        sharedOutboxes.removeAll()
        awaiting.removeAll()
    }

    /// `{"event":"position",...}` of `position`.
    private func positionText(_ position: (seq: Int, epoch: String?)) -> String {
        StreamMessages.position(feed: feed, epoch: position.epoch, seq: position.seq)
    }

    /// Queues `texts` for connection `id`, dropping it when its queue overflows.
    private mutating func offer(_ texts: [String], to id: Int) {
        guard let outbox = connections[id] else { return }
        for text in texts where !outbox.offer(text) {
            dropOverflowed(id)
            return
        }
    }

    /// Forgets a connection whose queue overflowed (its writer closes it).
    private mutating func dropOverflowed(_ id: Int) {
        connections.removeValue(forKey: id)
        sharedOutboxes.remove(id)
        awaiting.remove(id)
        overflowCount += 1
    }
}
