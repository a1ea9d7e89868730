import DequeModule
import RowCastJSON

/// Recent deltas per feed and the `since` request they answer (docs/PROTOCOL.md, "Resuming
/// from history"): a replica that missed a few deltas gets just those, not a snapshot.
extension Engine {
    /// Keeps a delta just published in its feed's history (and for the store's delta log when
    /// `logsHistory`), then trims the history to `limits.history_deltas` for the feed and
    /// `limits.history_bytes` over every feed (oldest deltas first).
    func recordHistory(_ feed: Feed, body: [UInt8]) {
        guard limits.historyDeltas > 0 else { return }
        if logsHistory {
            unloggedHistory.append(StoredDelta(feed: feed.name, epoch: feed.epoch, seq: feed.seq, body: body))
        }
        keepInHistory(feed, seq: feed.seq, body: body)
    }

    /// The deltas published since the last call, for the store's delta log (`logsHistory`).
    public func takeHistory() -> [StoredDelta] {
        defer { unloggedHistory.removeAll(keepingCapacity: true) }
        return unloggedHistory
    }

    /// Puts back a restored feed's logged deltas (oldest first, leading up to its seq) into
    /// its history, within the same limits as deltas just published.
    func restoreHistory(_ feed: Feed, deltas: [(seq: UInt64, body: [UInt8])]) {
        guard limits.historyDeltas > 0 else { return }
        for delta in deltas.suffix(limits.historyDeltas) { keepInHistory(feed, seq: delta.seq, body: delta.body) }
    }

    /// Adds a delta to `feed`'s history, then trims the history to `limits.history_deltas`
    /// for the feed and `limits.history_bytes` over every feed (oldest deltas first).
    private func keepInHistory(_ feed: Feed, seq: UInt64, body: [UInt8]) {
        feed.history.append(seq: seq, body: body)
        history.add(feed: feed.name, seq: seq, bytes: body.count)
        while feed.history.count > limits.historyDeltas, let removed = feed.history.removeOldest() {
            history.remove(bytes: removed.bytes)
        }
        while history.bytes > limits.historyBytes, let (name, seq) = history.popOldest() {
            guard let owner = feeds[name], owner.history.oldestSeq == seq, let removed = owner.history.removeOldest()
            else { continue }
            history.remove(bytes: removed.bytes)
        }
        history.compact { name, seq in (feeds[name]?.history.oldestSeq).map { seq >= $0 } ?? false }
    }

    /// Forgets the history of a feed being replaced or dropped.
    func forgetHistory(of feed: Feed) {
        history.remove(bytes: feed.history.bytes, entries: feed.history.count)
        feed.history.removeAll()
    }

    /// The `since` reply: the deltas after `seq` when the feed is still on `epoch` and its
    /// history holds every one of them (and they fit in one message); otherwise
    /// `"covered":false` with the reason, and the client takes a snapshot.
    func sinceReply(_ request: Request, epoch: String, seq: UInt64) -> [UInt8] {
        let name = request.feed!
        var writer = JSONWriter(capacity: 256)
        writer.writeRaw("{\"ok\":true,\"op\":\"since\",\"feed\":")
        writer.write(string: name)
        func uncovered(_ reason: String) -> [UInt8] {
            writer.writeRaw(",\"covered\":false,\"reason\":")
            writer.write(string: reason)
            ReplyBuilder.appendCorrelation(&writer, req: request.req, client: request.client)
            writer.writeRaw("}")
            return writer.bytes
        }
        guard let feed = feeds[name] else { return uncovered("feed \"\(name)\" does not exist") }
        writer.writeRaw(",\"epoch\":")
        writer.write(string: feed.epoch)
        writer.writeRaw(",\"seq\":")
        writer.write(integer: Int64(feed.seq))
        guard epoch == feed.epoch else { return uncovered("feed \"\(name)\" is on epoch \(feed.epoch), not \(epoch)") }
        guard seq <= feed.seq else { return uncovered("feed \"\(name)\" is at seq \(feed.seq), before \(seq)") }
        guard let deltas = feed.history.deltas(after: seq, current: feed.seq) else {
            let held = feed.history.oldestSeq.map { "seq \($0) to \(feed.seq)" } ?? "no delta"
            return uncovered("the history of feed \"\(name)\" holds \(held); seq \(seq + 1) is gone")
        }
        let size = deltas.reduce(0) { $0 + $1.count + 1 }
        guard size <= decoder.maximumMessageBytes else {
            return uncovered(
                "the \(deltas.count) deltas after seq \(seq) take \(size) bytes, over limits.max_message_bytes")
        }
        writer.writeRaw(",\"covered\":true,\"deltas\":[")
        for (index, delta) in deltas.enumerated() {
            if index > 0 { writer.writeRaw(",") }
            writer.writeRaw(delta)
        }
        writer.writeRaw("]")
        ReplyBuilder.appendCorrelation(&writer, req: request.req, client: request.client)
        writer.writeRaw("}")
        return writer.bytes
    }
}

/// The order deltas entered the feeds' histories in, over every feed, so that the oldest go
/// first when `limits.history_bytes` is reached; and the totals it is checked against.
struct HistoryLedger {
    private var order = Deque<(feed: String, seq: UInt64)>()
    /// Bytes of deltas held over every feed.
    private(set) var bytes = 0
    /// Deltas held over every feed (`order` may also hold some already dropped).
    private(set) var entries = 0

    /// Counts a delta added to a feed's history.
    mutating func add(feed: String, seq: UInt64, bytes size: Int) {
        order.append((feed, seq))
        bytes += size
        entries += 1
    }

    /// Counts deltas dropped from a feed's history.
    mutating func remove(bytes size: Int, entries count: Int = 1) {
        bytes -= size
        entries -= count
    }

    /// The oldest (feed, seq) recorded; forgets it.
    mutating func popOldest() -> (String, UInt64)? {
        order.popFirst().map { ($0.feed, $0.seq) }
    }

    /// Drops from `order` the deltas no history holds any more, once they are most of it
    /// (amortized O(1) per delta); `isHeld` says whether (feed, seq) is still held.
    mutating func compact(_ isHeld: (String, UInt64) -> Bool) {
        guard order.count > 2 * entries + 1024 else { return }
        order = Deque(order.filter { isHeld($0.feed, $0.seq) })
    }
}
