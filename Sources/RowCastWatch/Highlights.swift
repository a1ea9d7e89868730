import RowCastClient

/// Which rows are highlighted, and until when: fed from each applied delta, read by the
/// renderer, forgotten once their time is up.
///
/// Pure: every call takes the current time, so tests drive it with instants of their own.
/// Rows recorded together expire together, so forgetting them costs what recording them did;
/// at most ``limit`` rows are held (a reset of a huge feed highlights only the first ones).
public struct Highlights: Sendable {
    /// How long a row stays highlighted after a change.
    public var duration: Duration
    /// The most rows held at once.
    public var limit: Int
    /// Each highlighted row id: its kind and when it ends.
    private var entries: [String: (kind: Highlight, until: ContinuousClock.Instant)] = [:]
    /// The rows recorded together, oldest first, with when they end.
    private var batches: [(until: ContinuousClock.Instant, ids: [String])] = []
    /// The index of the oldest batch not yet forgotten.
    private var batchHead = 0

    /// No row highlighted; each change shows for `duration`.
    public init(duration: Duration = .milliseconds(1500), limit: Int = 100_000) {
        self.duration = duration
        self.limit = limit
    }

    /// How many rows are highlighted (including some whose time is up until ``expire(now:)``).
    public var count: Int { entries.count }

    /// The highlight of row `id` at `now`, if any.
    public func kind(of id: String, now: ContinuousClock.Instant) -> Highlight? {
        guard let entry = entries[id], entry.until > now else { return nil }
        return entry.kind
    }

    /// When the next highlight ends, or `nil` when none is shown: the view redraws then.
    public var nextExpiry: ContinuousClock.Instant? {
        batchHead < batches.count ? batches[batchHead].until : nil
    }

    /// Highlights the rows a delta inserted, reconfigured, reloaded or moved, from `now`.
    /// A row both moved and reconfigured shows as reconfigured; an insertion wins over both.
    public mutating func record(_ delta: FeedDelta, now: ContinuousClock.Instant) {
        var kinds: [String: Highlight] = [:]
        for move in delta.movedRows { kinds[move.id] = .moved }
        for entry in delta.reconfiguredRows + delta.reloadedRows { kinds[entry.id] = .reconfigured }
        for entry in delta.insertedRows { kinds[entry.id] = .inserted }
        for section in delta.insertedSections {
            for row in section.rows { if let id = row["id"]?.stringValue { kinds[id] = .inserted } }
        }
        record(kinds, now: now)
    }

    /// Highlights one row as `kind`, from `now` (for ``Highlight/found``: twice as long).
    public mutating func mark(_ id: String, as kind: Highlight, now: ContinuousClock.Instant) {
        record([id: kind], now: now, duration: kind == .found ? duration * 2 : duration)
    }

    /// Forgets every highlight (the replica was reloaded).
    public mutating func removeAll() {
        entries.removeAll()
        batches.removeAll()
        batchHead = 0
    }

    /// Forgets the highlights whose time is up at `now`.
    public mutating func expire(now: ContinuousClock.Instant) {
        while batchHead < batches.count, batches[batchHead].until <= now {
            for id in batches[batchHead].ids where entries[id].map({ $0.until <= now }) ?? false {
                entries[id] = nil
            }
            batchHead += 1
        }
        if batchHead == batches.count {
            batches.removeAll(keepingCapacity: true)
            batchHead = 0
        } else if batchHead > 64, batchHead * 2 > batches.count {
            batches.removeFirst(batchHead)
            batchHead = 0
        }
    }

    /// Records `kinds` as one batch ending `duration` after `now`.
    private mutating func record(_ kinds: [String: Highlight], now: ContinuousClock.Instant, duration: Duration? = nil)
    {
        let until = now + (duration ?? self.duration)
        var ids: [String] = []
        for (id, kind) in kinds {
            if entries[id] == nil, entries.count >= limit { continue }
            entries[id] = (kind, until)
            ids.append(id)
        }
        guard !ids.isEmpty else { return }
        // Batches stay ordered by end time: a longer highlight goes where it belongs.
        var position = batches.count
        while position > batchHead, batches[position - 1].until > until { position -= 1 }
        batches.insert((until, ids), at: position)
    }
}
