import DequeModule

/// The items a start restored with rows drawn by a renderer that changed since: served with
/// those rows, and rendered again in the background, feed by feed, a bounded chunk at a time
/// (`Engine.renderStaleChunk`), so the loop keeps serving every feed meanwhile.
///
/// While any remain, their types are `types`: the store keeps recording the old renderer for
/// them (`DurableEngine`), so a stop before the queue is done renders what is left again at
/// the next start. An entry whose item changed meanwhile (a new version, a reload that
/// rendered it, a delete) is skipped: its `StoredItem.staleRow` is clear.
public struct StaleRenders {
    private var queue: Deque<(feed: String, ids: [String])> = []
    /// Where the first feed of the queue stands.
    private var next = 0
    /// The item types whose rows are stale until the queue is done.
    public private(set) var types: Set<String> = []
    /// How many entries wait.
    public private(set) var count = 0

    /// An empty queue.
    public init() {}

    /// Whether nothing waits.
    public var isEmpty: Bool { count == 0 }

    /// Queues the stale items `ids` of `feed`, of the stale types `staleTypes`.
    mutating func add(feed: String, ids: [String], staleTypes: Set<String>) {
        types.formUnion(staleTypes)
        guard !ids.isEmpty else { return }
        queue.append((feed, ids))
        count += ids.count
    }

    /// Takes up to `limit` entries, feed by feed in the order queued (a chunk renders in one
    /// call to the renderer, and each of its feeds gets one delta).
    mutating func take(upTo limit: Int) -> [(feed: String, ids: ArraySlice<String>)] {
        var taken: [(feed: String, ids: ArraySlice<String>)] = []
        var room = limit
        while room > 0, let first = queue.first {
            let end = min(first.ids.count, next + room)
            taken.append((first.feed, first.ids[next..<end]))
            room -= end - next
            count -= end - next
            if end == first.ids.count {
                queue.removeFirst()
                next = 0
            } else {
                next = end
            }
        }
        return taken
    }

    /// Once the queue is done: the types whose rows are all current now, and forgets them.
    mutating func takeRefreshedTypes() -> Set<String> {
        guard isEmpty, !types.isEmpty else { return [] }
        defer { types = [] }
        return types
    }
}
