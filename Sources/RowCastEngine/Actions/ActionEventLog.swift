import DequeModule

/// The recent action events of every feed, for `events` requests: each feed's events are
/// numbered 1, 2, 3, ... (the event sequence, which never goes back) and the last
/// `retention` of them are kept, here and in the durable store.
///
/// Not `Sendable`: it belongs to the engine's thread.
public struct ActionEventLog {
    /// The most events one `events` reply carries.
    public static let maximumPage = 1000
    /// The default number of events kept per feed.
    public static let defaultRetention = 10_000

    /// One feed's kept events and the sequence of its last event.
    struct FeedEvents {
        var last: UInt64 = 0
        var events = Deque<ActionEvent>()
    }

    /// How many events are kept per feed (the oldest go first).
    public var retention: Int
    private var feeds: [String: FeedEvents] = [:]
    /// Events recorded since the last ``takeChanges()``, for the next commit.
    private var uncommitted: [ActionEvent] = []

    /// An empty log keeping `retention` events per feed.
    public init(retention: Int = ActionEventLog.defaultRetention) {
        self.retention = max(1, retention)
    }

    /// What one page of a feed's events holds.
    public struct Page: Sendable {
        /// The events after the asked sequence, oldest first (at most the asked limit).
        public var events: [ActionEvent]
        /// The sequence of the feed's last event (0 when it has none).
        public var last: UInt64
        /// The sequence of the oldest event still kept (nil when none is).
        public var first: UInt64?
        /// False when events after the asked sequence were already dropped by retention.
        public var covered: Bool
    }

    /// The sequence of `feed`'s last event (0 when none).
    public func lastSequence(of feed: String) -> UInt64 { feeds[feed]?.last ?? 0 }

    /// Records a new event of `feed`; `body` writes it given its sequence.
    @discardableResult
    public mutating func append(feed: String, body: (UInt64) -> [UInt8]) -> ActionEvent {
        var entry = feeds[feed] ?? FeedEvents()
        entry.last += 1
        let event = ActionEvent(feed: feed, seq: entry.last, body: body(entry.last))
        entry.events.append(event)
        while entry.events.count > retention { entry.events.removeFirst() }
        feeds[feed] = entry
        uncommitted.append(event)
        return event
    }

    /// The events of `feed` with a sequence above `after`, at most `limit`.
    public func page(feed: String, after: UInt64, limit: Int) -> Page {
        guard let entry = feeds[feed] else { return Page(events: [], last: 0, first: nil, covered: true) }
        let first = entry.events.first?.seq
        var events: [ActionEvent] = []
        if let first {
            let start = after < first ? 0 : Int(after - first + 1)
            if start < entry.events.count {
                let end = min(entry.events.count, start + limit)
                events = Array(entry.events[start..<end])
            }
        }
        let covered = first.map { after + 1 >= $0 } ?? (after >= entry.last)
        return Page(events: events, last: entry.last, first: first, covered: covered)
    }

    /// The events recorded since the last call, for the store; forgets them.
    public mutating func takeChanges() -> [ActionEvent] {
        defer { uncommitted = [] }
        return uncommitted
    }

    /// Puts back what the store kept (at start): events of every feed, oldest first.
    public mutating func restore(_ events: [ActionEvent]) {
        feeds = [:]
        for event in events {
            var entry = feeds[event.feed] ?? FeedEvents()
            entry.events.append(event)
            entry.last = max(entry.last, event.seq)
            while entry.events.count > retention { entry.events.removeFirst() }
            feeds[event.feed] = entry
        }
    }

    /// Adds what the store kept for feeds taken over at run time (a cluster node's new
    /// partitions), oldest first; the log's other feeds stay as they are.
    public mutating func adopt(_ events: [ActionEvent]) {
        for event in events {
            var entry = feeds[event.feed] ?? FeedEvents()
            entry.events.append(event)
            entry.last = max(entry.last, event.seq)
            while entry.events.count > retention { entry.events.removeFirst() }
            feeds[event.feed] = entry
        }
    }

    /// Forgets the events of the feeds for which `leaving` holds (a cluster node gave their
    /// partitions up); the store keeps them.
    public mutating func forget(feeds leaving: (String) -> Bool) {
        for name in feeds.keys where leaving(name) { feeds[name] = nil }
        uncommitted.removeAll { leaving($0.feed) }
    }

    /// Forgets `events`, which were not committed (a failed commit): each feed goes back to
    /// the sequence before the first of them. They are the newest of their feeds.
    public mutating func rollBack(_ events: [ActionEvent]) {
        var firstRefused: [String: UInt64] = [:]
        for event in events { firstRefused[event.feed] = min(firstRefused[event.feed] ?? .max, event.seq) }
        for (feed, seq) in firstRefused {
            guard var entry = feeds[feed] else { continue }
            while let last = entry.events.last, last.seq >= seq { entry.events.removeLast() }
            entry.last = seq - 1
            feeds[feed] = entry
        }
        uncommitted.removeAll { event in firstRefused[event.feed].map { event.seq >= $0 } ?? false }
    }
}

@available(*, unavailable)
extension ActionEventLog: Sendable {}
