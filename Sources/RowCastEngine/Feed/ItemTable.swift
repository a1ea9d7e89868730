/// A feed's stored items by id, kept as `shardCount` open-addressing tables (``ItemTableShard``)
/// chosen by bits of the id's hash, so that growth never moves every item at once.
///
/// A table doubles its slots when it fills up and moves every entry in that one insert. For a
/// feed's items that pause grew with the feed: the latency benchmark found the loop thread
/// busy for milliseconds at a time in a big feed, long enough to set the p99 of a run. Split
/// 64 ways, each growth moves 1/64 of the entries, and the shards grow at different moments
/// because their sizes differ by chance.
///
/// The key is the item's own id, so it is not stored a second time. An item's `input.id` must
/// not change while the table holds it (``Feed`` replaces an item's input only with one of the
/// same id).
///
/// Hashing is Swift's `Hasher`, the per-process-seeded SipHash that `Dictionary` uses: ids come
/// from publishers, and a fixed hash would let one choose ids that all land in one run. One
/// hash serves both choices: its top bits pick the shard, its low bits the first slot.
///
/// A class: the feed holds one and changes it in place, and the shards' storage is freed with
/// it. Iterates in no particular order (the hash's, which the seed changes from process to
/// process); every caller sorts or does not care.
final class ItemTable: Sequence {
    /// How many shards the items are spread over (a power of two).
    static var shardCount: Int { 64 }

    /// How far the hash is shifted right to leave the shard's number (its top bits).
    private static var shardShift: Int { Int.bitWidth - shardCount.trailingZeroBitCount }

    /// The shards, `shardCount` of them, allocated with the table.
    private let shards: UnsafeMutablePointer<ItemTableShard>
    /// How many items there are, over all shards.
    private(set) var count = 0

    /// An empty table; its shards allocate nothing until they get an item.
    init() {
        shards = .allocate(capacity: Self.shardCount)
        for index in 0..<Self.shardCount { (shards + index).initialize(to: ItemTableShard()) }
    }

    deinit {
        shards.deinitialize(count: Self.shardCount)
        shards.deallocate()
    }

    /// Whether there are no items.
    var isEmpty: Bool { count == 0 }

    /// The seeded hash of `id`: `id.hashValue`, as a `Dictionary` computes it.
    @inline(__always)
    private static func hash(of id: String) -> Int { id.hashValue }

    /// The shard of an id whose hash is `hash`: its top bits, which the slot index (low bits,
    /// below the largest shard's size) does not use.
    @inline(__always)
    private func shard(of hash: Int) -> UnsafeMutablePointer<ItemTableShard> {
        shards + Int(truncatingIfNeeded: UInt(bitPattern: hash) >> UInt(Self.shardShift))
    }

    /// The item with id `id`, or nil.
    subscript(id: String) -> StoredItem? {
        let hash = Self.hash(of: id)
        return shard(of: hash).pointee.item(id, hash: hash)
    }

    /// Hands `update` the item with id `id` and returns what it returns; when there is no such
    /// item, stores `insert()` instead and returns nil. One hash either way, and one probe but
    /// for a new item's placing, which walks the same cache line again. `insert` must return an
    /// item whose id is `id`, and must not change the table.
    func modifyOrInsert<Result>(forKey id: String, insert: () -> StoredItem, update: (StoredItem) -> Result) -> Result?
    {
        let hash = Self.hash(of: id)
        let shard = shard(of: hash)
        if let item = shard.pointee.item(id, hash: hash) { return update(item) }
        let item = insert()
        assert(
            item.input.id == id && shard.pointee.item(id, hash: hash) == nil,
            "ItemTable.modifyOrInsert: insert() returned another id, or stored one")
        shard.pointee.insertNew(item, hash: hash)
        count += 1
        return nil
    }

    /// Stores `item` under its id and returns the item it replaced, if any.
    @discardableResult
    func updateValue(_ item: StoredItem) -> StoredItem? {
        let id = item.input.id
        let hash = Self.hash(of: id)
        let replaced = shard(of: hash).pointee.update(item, id: id, hash: hash)
        if replaced == nil { count += 1 }
        return replaced
    }

    /// Removes and returns the item with id `id`, or nil when there is none.
    @discardableResult
    func removeValue(forKey id: String) -> StoredItem? {
        let hash = Self.hash(of: id)
        let removed = shard(of: hash).pointee.remove(id, hash: hash)
        if removed != nil { count -= 1 }
        return removed
    }

    /// The fewest items worth reserving room for: below it the shards grow as items come,
    /// which costs little for so few.
    static var reservationThreshold: Int { shardCount * 16 }

    /// Makes room for `capacity` items in all, spread evenly, plus a margin for the shards that
    /// get more than their share. Does nothing below `reservationThreshold`: a fixed margin per
    /// shard made every restored one-item feed reserve 64 shards of 16 slots, 13 times its
    /// running size (100,000 small feeds took 5.4 GB after a restart).
    func reserveCapacity(_ capacity: Int) {
        guard capacity >= Self.reservationThreshold else { return }
        let perShard = capacity / Self.shardCount + capacity / (Self.shardCount * 8)
        for index in 0..<Self.shardCount { shards[index].reserve(perShard) }
    }

    /// Removes every item; keeps the shards' slots when `keepingCapacity`.
    func removeAll(keepingCapacity: Bool = false) {
        for index in 0..<Self.shardCount { shards[index].removeAll(keepingCapacity: keepingCapacity) }
        count = 0
    }

    /// How many items fit without growing, over all shards.
    var capacity: Int { (0..<Self.shardCount).reduce(0) { $0 + shards[$1].capacity } }

    /// How many items each shard holds (how evenly the hash spreads ids).
    var shardSizes: [Int] { (0..<Self.shardCount).map { shards[$0].count } }

    /// The number of items (iteration yields exactly this many).
    var underestimatedCount: Int { count }

    /// Every item, shard by shard in slot order.
    func makeIterator() -> Iterator { Iterator(table: self) }

    /// Walks the shards' slots in order, yielding the items.
    struct Iterator: IteratorProtocol {
        /// The table walked (kept alive by the iterator).
        private let table: ItemTable
        /// The shard being walked.
        private var shard = 0
        /// The next slot of that shard to look at.
        private var slot = 0

        /// An iterator at the table's first slot.
        init(table: ItemTable) { self.table = table }

        /// The next item. Reads the shard's slots as they are now, with bounds checks, so a
        /// table changed during the walk may yield items twice or not at all, but never reads
        /// freed memory.
        mutating func next() -> StoredItem? {
            while shard < ItemTable.shardCount {
                let slotCount = table.shards[shard].slotCount
                while slot < slotCount {
                    defer { slot += 1 }
                    if let item = table.shards[shard].item(at: slot) { return item }
                }
                shard += 1
                slot = 0
            }
            return nil
        }
    }
}
