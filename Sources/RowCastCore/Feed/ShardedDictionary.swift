/// A `[String: Value]` kept as `shardCount` smaller dictionaries, chosen by a cheap hash of the
/// key, so that growth never rehashes everything at once.
///
/// A Swift `Dictionary` doubles its storage when it fills up and moves every entry in that one
/// insert. For a feed's items that pause grew with the feed: the latency benchmark measured the
/// loop thread busy for 13 ms at 24,000 items and 27 ms at 49,000, long enough to set the p99 of
/// a 50,000-item run. Split 64 ways, each growth moves 1/64 of the entries, and the shards grow
/// at different moments because their sizes differ by chance.
struct ShardedDictionary<Value>: Sequence {
    /// How many dictionaries the entries are spread over (a power of two).
    static var shardCount: Int { 64 }

    private var shards: [[String: Value]]
    /// How many entries there are.
    private(set) var count = 0

    /// An empty dictionary.
    init() {
        shards = Array(repeating: [:], count: Self.shardCount)
    }

    /// Whether there are no entries.
    var isEmpty: Bool { count == 0 }

    /// The shard of `key`: FNV-1a over its UTF-8 bytes. Independent of the seeded hash that
    /// each shard uses inside, so the shards fill evenly.
    @inline(__always)
    private static func shard(of key: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in key.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash & UInt32(shardCount - 1))
    }

    /// The value for `key`; assigning nil removes it. Mutations through it happen in place.
    subscript(key: String) -> Value? {
        get { shards[Self.shard(of: key)][key] }
        _modify {
            let shard = Self.shard(of: key)
            let before = shards[shard].count
            defer { count += shards[shard].count - before }
            yield &shards[shard][key]
        }
    }

    /// Stores `value` for `key` and returns the value it replaced, if any. Takes `value` over
    /// without copying it (assigning through the subscript copied it: a retain of each of its
    /// references per insert).
    @discardableResult
    mutating func updateValue(_ value: consuming Value, forKey key: String) -> Value? {
        let replaced = shards[Self.shard(of: key)].updateValue(value, forKey: key)
        if replaced == nil { count += 1 }
        return replaced
    }

    /// Changes the value for `key` in place and returns what `body` returns, or nil (without
    /// calling `body`) when there is no such key.
    mutating func modifyValue<Result>(forKey key: String, _ body: (inout Value) -> Result) -> Result? {
        let shard = Self.shard(of: key)
        guard let index = shards[shard].index(forKey: key) else { return nil }
        return body(&shards[shard].values[index])
    }

    /// Changes the value for `key` in place with `update` and returns what it returns; when
    /// there is no such key, stores `insert()` instead and returns nil. One hash and probe either
    /// way (`modifyValue` and then `updateValue` for a new key cost two).
    mutating func modifyOrInsert<Result>(forKey key: String, insert: () -> Value, update: (inout Value) -> Result) -> Result? {
        let shard = Self.shard(of: key)
        // A shard grows when half its buckets are taken, not three quarters as a Dictionary
        // does by itself: a new key is placed by linear probing, which looks at about
        // (1 + 1/(1 - load)²)/2 buckets, each a cache miss in a big feed; at loads of 1/4 to
        // 1/2 that is half as many as at 3/8 to 3/4, for about 40 more bytes per item.
        if shards[shard].count >= shards[shard].capacity * 2 / 3 {
            shards[shard].reserveCapacity(shards[shard].capacity * 2 + 1)
        }
        var inserted = false
        var result: Result?
        Self.access(&shards[shard][key, default: { inserted = true; return insert() }()]) { value in
            if !inserted { result = update(&value) }
        }
        if inserted { count += 1 }
        return result
    }

    private static func access(_ value: inout Value, _ body: (inout Value) -> Void) { body(&value) }

    /// Hands `body` the value for `key` where it is stored, and returns what `body` returns, or
    /// nil (without calling `body`) when there is no such key. The subscript's getter copies the
    /// whole value out (a retain and release of each of its references); reading a field or
    /// two through this costs only those fields. Mutating because the storage is reached
    /// through the in-place accessor, the only one that does not copy; nothing is changed.
    mutating func withValue<Result>(forKey key: String, _ body: (borrowing Value) -> Result) -> Result? {
        modifyValue(forKey: key) { value in body(value) }
    }

    /// Hands `body` every entry, each value where it is stored (see `withValue`): a pass over
    /// a million items that copied each one out spent most of its time retaining and releasing.
    mutating func forEachEntry(_ body: (_ key: String, _ value: borrowing Value) -> Void) {
        for shard in shards.indices {
            for index in shards[shard].indices {
                let key = shards[shard].keys[index]
                body(key, shards[shard].values[index])
            }
        }
    }

    /// Removes and returns the value for `key`, or nil when there is none.
    @discardableResult
    mutating func removeValue(forKey key: String) -> Value? {
        let removed = shards[Self.shard(of: key)].removeValue(forKey: key)
        if removed != nil { count -= 1 }
        return removed
    }

    /// The fewest entries worth reserving room for: below it the shards grow as entries come,
    /// which costs little for so few.
    static var reservationThreshold: Int { shardCount * 16 }

    /// Makes room for `capacity` entries in all, spread evenly, plus a margin for the shards
    /// that get more than their share. Does nothing below `reservationThreshold`: a fixed
    /// margin per shard made every restored one-item feed reserve 64 shards of 16 slots, about
    /// 56 kB, 13 times its running size (100,000 small feeds took 5.4 GB after a restart).
    mutating func reserveCapacity(_ capacity: Int) {
        guard capacity >= Self.reservationThreshold else { return }
        let perShard = capacity / Self.shardCount + capacity / (Self.shardCount * 8)
        for shard in shards.indices { shards[shard].reserveCapacity(perShard) }
    }

    /// Removes every entry.
    mutating func removeAll(keepingCapacity: Bool = false) {
        for shard in shards.indices { shards[shard].removeAll(keepingCapacity: keepingCapacity) }
        count = 0
    }

    /// Every key (no particular order).
    var keys: LazySequence<FlattenSequence<LazyMapSequence<[[String: Value]], Dictionary<String, Value>.Keys>>> {
        shards.lazy.map(\.keys).joined()
    }

    /// Every value (no particular order).
    var values: LazySequence<FlattenSequence<LazyMapSequence<[[String: Value]], Dictionary<String, Value>.Values>>> {
        shards.lazy.map(\.values).joined()
    }

    /// Every entry as `(key, value)` (no particular order).
    func makeIterator() -> FlattenSequence<[[String: Value]]>.Iterator {
        shards.joined().makeIterator()
    }

    /// How many entries fit without growing, over all shards.
    var capacity: Int { shards.reduce(0) { $0 + $1.capacity } }

    /// How many entries each shard holds (how evenly the hash spreads keys).
    var shardSizes: [Int] { shards.map(\.count) }

    /// The number of entries (iteration yields exactly this many).
    var underestimatedCount: Int { count }
}
