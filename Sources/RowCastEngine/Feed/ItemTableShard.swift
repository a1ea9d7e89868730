/// One shard of an ``ItemTable``: an open-addressing hash table of stored items keyed by their
/// own ids (`input.id`), with linear probing over one array of slots.
///
/// A slot is the id's seeded hash and the item's reference, 16 bytes, so a probe reads one cache
/// line and compares the hash before it touches the item; only a hash that matches leads to
/// the item's id. A `Dictionary<String, StoredItem>` kept the keys, the values and a bitmap of
/// used buckets in three arrays (three lines per probe) and stored each id a second time.
///
/// Removal shifts the entries after the removed one back (backward-shift deletion), so there
/// are no tombstones: the table after any sequence of removals is the table the remaining
/// items would have built, probes stay as short as the load says, and the load that triggers
/// growth counts only live items.
///
/// Noncopyable: it owns its slots, which it frees when it goes away.
struct ItemTableShard: ~Copyable {
    /// One place of the table: an item and the hash of its id, or nothing.
    struct Slot {
        /// The seeded hash of the item's id (``ItemTable``'s `hash(of:)`); 0 in an empty slot.
        var hash: Int
        /// The item, or nil when the slot is empty.
        var item: StoredItem?
    }

    /// The fewest slots a shard allocates: one cache line.
    static var minimumSlots: Int { 4 }

    /// The slots, a power of two of them, every one initialized (an empty one holds nil); nil
    /// before the first insert or reservation, so that an empty shard allocates nothing.
    private var slots: UnsafeMutablePointer<Slot>?
    /// The number of slots minus one (0 while `slots` is nil). 32 bits with `count`, so that the
    /// 64 shards' headers take 1 kB per feed.
    private var mask: UInt32 = 0
    /// How many items the shard holds.
    private var storedCount: UInt32 = 0

    /// An empty shard, with no storage.
    init() {}

    deinit {
        if let slots {
            slots.deinitialize(count: slotCount)
            slots.deallocate()
        }
    }

    /// How many items the shard holds.
    var count: Int { Int(storedCount) }

    /// How many slots there are (0 before the first insert).
    var slotCount: Int { slots == nil ? 0 : Int(mask) + 1 }

    /// How many items fit before the shard grows: half its slots (see `insertNew`).
    var capacity: Int { slotCount / 2 }

    /// The item with id `id`, whose hash is `hash`, or nil.
    @inline(__always)
    func item(_ id: String, hash: Int) -> StoredItem? {
        guard let slots, let index = Self.find(id, hash: hash, in: slots, mask: Int(mask)) else { return nil }
        return slots[index].item
    }

    /// The slot holding `id`, or nil when no slot does. The walk stops at the first empty slot,
    /// which exists because the table is never more than half full.
    @inline(__always)
    private static func find(_ id: String, hash: Int, in slots: UnsafeMutablePointer<Slot>, mask: Int) -> Int? {
        var index = hash & mask
        while true {
            let slot = slots + index
            // Emptiness and the hash first, without taking a reference to the item: they are
            // in the slot's cache line, the id is in the item's.
            if slot.pointee.item == nil { return nil }
            if slot.pointee.hash == hash && slot.pointee.item.unsafelyUnwrapped.input.id == id { return index }
            index = (index &+ 1) & mask
        }
    }

    /// Stores `item`, whose id (hash `hash`) the shard does not hold, growing first when that
    /// would make the shard more than half full.
    ///
    /// Half, not the three quarters a `Dictionary` allows: a new key is placed by linear
    /// probing, which looks at about (1 + 1/(1 - load)²)/2 slots; at loads of 1/4 to 1/2 that
    /// is half as many as at 3/8 to 3/4. The place is found again from the id's first slot
    /// rather than taken from an earlier lookup, so that nothing done between the two can make
    /// it stale (the line is in the cache by then).
    @inline(__always)
    mutating func insertNew(_ item: consuming StoredItem, hash: Int) {
        if (Int(storedCount) + 1) * 2 > slotCount { grow(toHold: Int(storedCount) + 1) }
        let slots = slots.unsafelyUnwrapped
        let mask = Int(self.mask)
        var index = hash & mask
        while slots[index].item != nil { index = (index &+ 1) & mask }
        slots[index] = Slot(hash: hash, item: item)
        storedCount += 1
    }

    /// Replaces the item with id `id` (hash `hash`) by `item`, or stores `item` when there is
    /// none; returns the item replaced.
    mutating func update(_ item: consuming StoredItem, id: String, hash: Int) -> StoredItem? {
        if let slots, let index = Self.find(id, hash: hash, in: slots, mask: Int(mask)) {
            let replaced = slots[index].item
            slots[index].item = item
            return replaced
        }
        insertNew(item, hash: hash)
        return nil
    }

    /// Removes and returns the item with id `id` (hash `hash`), or nil when there is none.
    ///
    /// Backward-shift deletion: each entry of the run after the hole that may sit in it (its
    /// first slot is not between the hole and itself, cyclically) moves into it, and the hole
    /// moves to where it was, until an empty slot ends the run. Every entry then stays reachable
    /// from its first slot without passing an empty one, which is what `find` relies on.
    mutating func remove(_ id: String, hash: Int) -> StoredItem? {
        guard let slots, let found = Self.find(id, hash: hash, in: slots, mask: Int(mask)) else { return nil }
        let mask = Int(self.mask)
        let removed = slots[found].item
        var hole = found
        var next = (found &+ 1) & mask
        while slots[next].item != nil {
            let home = slots[next].hash & mask
            // How far the entry is from its first slot, and how far the hole is behind it.
            if (next &- home) & mask >= (next &- hole) & mask {
                (slots + hole).moveUpdate(from: slots + next, count: 1)
                (slots + next).initialize(to: Slot(hash: 0, item: nil))
                hole = next
            }
            next = (next &+ 1) & mask
        }
        slots[hole] = Slot(hash: 0, item: nil)
        storedCount -= 1
        return removed
    }

    /// Makes room for `count` items without growing.
    mutating func reserve(_ count: Int) {
        if count * 2 > slotCount { grow(toHold: count) }
    }

    /// Moves every item into a new array of the fewest slots (a power of two, at least
    /// `minimumSlots`) that keeps `count` items at most half of them.
    ///
    /// The old slots are read in order and each item is placed from its first slot in the new
    /// array; with twice the slots an entry's first slot is its old one or that plus the old
    /// size, so the new array's runs are no longer than the old ones.
    private mutating func grow(toHold count: Int) {
        var newCount = Self.minimumSlots
        while newCount < count * 2 { newCount *= 2 }
        precondition(newCount <= Int(UInt32.max) + 1, "ItemTableShard: more items than one shard indexes")
        let newSlots = UnsafeMutablePointer<Slot>.allocate(capacity: newCount)
        newSlots.initialize(repeating: Slot(hash: 0, item: nil), count: newCount)
        let newMask = newCount - 1
        if let slots {
            for index in 0..<slotCount {
                let slot = (slots + index).move()
                guard slot.item != nil else { continue }
                var place = slot.hash & newMask
                while newSlots[place].item != nil { place = (place &+ 1) & newMask }
                newSlots[place] = slot
            }
            slots.deallocate()
        }
        slots = newSlots
        mask = UInt32(newMask)
    }

    /// Removes every item; keeps the slots when `keepingCapacity`, frees them otherwise.
    mutating func removeAll(keepingCapacity: Bool) {
        guard let slots else { return }
        if keepingCapacity {
            slots.update(repeating: Slot(hash: 0, item: nil), count: slotCount)
        } else {
            slots.deinitialize(count: slotCount)
            slots.deallocate()
            self.slots = nil
            mask = 0
        }
        storedCount = 0
    }

    /// The item in slot `index` (nil when it is empty or past the end), for iteration: an index
    /// out of range is an end rather than a fault, so an iterator over a table that changed
    /// stays memory-safe.
    func item(at index: Int) -> StoredItem? {
        guard let slots, index >= 0, index < slotCount else { return nil }
        return slots[index].item
    }
}
