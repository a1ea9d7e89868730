import DequeModule

/// A feed's recent deltas, oldest first, as published: what a `since` request is answered
/// from (docs/PROTOCOL.md, "Resuming from history"). Bounded by the engine
/// (`limits.history_deltas` per feed, `limits.history_bytes` over every feed); a durable
/// engine also logs each delta in the store and rebuilds this from the log at start.
struct DeltaHistory {
    private var entries = Deque<(seq: UInt64, body: [UInt8])>()
    /// The bytes of the deltas held.
    private(set) var bytes = 0

    /// How many deltas are held.
    var count: Int { entries.count }
    /// The seq of the oldest delta held.
    var oldestSeq: UInt64? { entries.first?.seq }

    /// Adds the feed's latest delta.
    mutating func append(seq: UInt64, body: [UInt8]) {
        entries.append((seq, body))
        bytes += body.count
    }

    /// Drops the oldest delta; returns its seq and size.
    @discardableResult
    mutating func removeOldest() -> (seq: UInt64, bytes: Int)? {
        guard let oldest = entries.popFirst() else { return nil }
        bytes -= oldest.body.count
        return (oldest.seq, oldest.body.count)
    }

    /// Drops every delta (the feed's history restarted).
    mutating func removeAll() {
        entries.removeAll()
        bytes = 0
    }

    /// The deltas after `seq` up to `current`, in order, when the history holds every one of
    /// them; nil when some are gone.
    func deltas(after seq: UInt64, current: UInt64) -> [[UInt8]]? {
        guard seq < current else { return [] }
        guard let oldest = entries.first?.seq, oldest <= seq + 1 else { return nil }
        let start = Int(seq + 1 - oldest)
        guard start < entries.count, entries[start].seq == seq + 1 else { return nil }
        let wanted = entries[start...].map(\.body)
        return wanted.count == Int(current - seq) ? wanted : nil
    }
}
