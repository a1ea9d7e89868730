@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastTesting
import Testing

/// ``ItemTable`` against a `[String: StoredItem]`, and its reservation, spread and load. The
/// cases of the `ShardedDictionary` it replaced, ported to items keyed by their own ids.
struct ItemTableTests {
    /// A stored item with id `id`, told apart from others of the same id by `arrival`.
    static func item(_ id: String, _ arrival: Int = 0) -> StoredItem {
        StoredItem(
            input: ItemInput(id: id, type: "t", section: "s", sort: nil, json: []), arrival: UInt64(arrival), row: nil)
    }

    /// Expects `table` to hold exactly the items of `reference`, the same objects, found by
    /// lookup and by iteration.
    static func expectSame(_ table: ItemTable, _ reference: [String: StoredItem], _ context: @autoclosure () -> String)
    {
        #expect(table.count == reference.count, "\(context()): count \(table.count), expected \(reference.count)")
        #expect(table.shardSizes.reduce(0, +) == reference.count, "\(context()): shard sizes")
        for (id, item) in reference where table[id] !== item {
            Issue.record("\(context()): \(id) finds \(table[id].map { "arrival \($0.arrival)" } ?? "nothing")")
            return
        }
        var walked = 0
        for item in table {
            walked += 1
            if reference[item.input.id] !== item {
                Issue.record("\(context()): iteration yields \(item.input.id), which is not stored"); return
            }
        }
        #expect(walked == reference.count, "\(context()): iteration yields \(walked) items")
    }

    @Test(
        "reserving room for a few items reserves nothing (a restored one-item feed stays small); for many, room for all"
    )
    func reservation() {
        let small = ItemTable()
        small.reserveCapacity(1)
        #expect(small.capacity == 0)
        small.updateValue(Self.item("a"))
        #expect(small.capacity < 16)
        let large = ItemTable()
        large.reserveCapacity(100_000)
        #expect(large.capacity >= 100_000)
        #expect(large.capacity <= 300_000)
    }

    @Test(
        "inserts, updates and removals in random order, growing through several doublings and shrinking in delete-heavy phases, agree with a Dictionary"
    )
    func matchesDictionary() {
        var random = SplitMix64(state: 7)
        let table = ItemTable()
        var reference: [String: StoredItem] = [:]
        // Phases: (steps, key range, chance in 8 of a removal). Growth to several thousand
        // items (about 100 a shard: five doublings or more each), removals down to a few
        // hundred, growth again over more keys, then a mix on a small range.
        let phases = [
            (16_000, 12_000, 1), (12_000, 12_000, 7), (12_000, 24_000, 2), (10_000, 24_000, 6), (10_000, 300, 4),
        ]
        var step = 0
        var mostItems = 0
        for (steps, keys, removals) in phases {
            for _ in 0..<steps {
                step += 1
                let id = "e2e-\(Int.random(in: 0..<keys, using: &random))"
                if Int.random(in: 0..<8, using: &random) < removals {
                    #expect(
                        table.removeValue(forKey: id) === reference.removeValue(forKey: id),
                        "step \(step): removing \(id)")
                } else if Bool.random(using: &random) {
                    let item = Self.item(id, step)
                    #expect(
                        table.updateValue(item) === reference.updateValue(item, forKey: id),
                        "step \(step): storing \(id)")
                } else {
                    var inserted: StoredItem?
                    let updated = table.modifyOrInsert(
                        forKey: id,
                        insert: {
                            inserted = Self.item(id, step)
                            return inserted!
                        },
                        update: { item -> UInt64 in
                            item.arrival += 1
                            return item.arrival
                        })
                    if let existing = reference[id] {
                        #expect(updated == existing.arrival && inserted == nil, "step \(step): \(id) updated")
                    } else {
                        #expect(updated == nil && inserted != nil, "step \(step): \(id) inserted")
                        reference[id] = inserted
                    }
                }
                // After every step: the count and the id touched; every 500 steps and at each
                // phase's end, everything (each item by lookup and by iteration).
                #expect(table.count == reference.count && table[id] === reference[id], "step \(step): \(id)")
                if step % 500 == 0 { Self.expectSame(table, reference, "step \(step)") }
            }
            Self.expectSame(table, reference, "end of phase at step \(step)")
            mostItems = max(mostItems, table.count)
        }
        #expect(mostItems >= 6_400)
        #expect(table["absent"] == nil)
        table.removeAll(keepingCapacity: true)
        #expect(table.isEmpty && Array(table).isEmpty && table.capacity > 0)
        Self.expectSame(table, [:], "after removeAll")
        table.updateValue(Self.item("again"))
        #expect(table.count == 1 && table["again"] != nil)
        table.removeAll()
        #expect(table.isEmpty && table.capacity == 0)
    }

    @Test("reserving capacity keeps contents and counts")
    func reserve() {
        let table = ItemTable()
        table.updateValue(Self.item("a", 1))
        table.reserveCapacity(100_000)
        for index in 0..<1_000 { table.updateValue(Self.item("k\(index)", index)) }
        #expect(table.count == 1_001 && table["a"]?.arrival == 1 && table["k999"]?.arrival == 999)
    }

    @Test("ids spread evenly over the shards, for sequential and random-looking ids")
    func spreadsEvenly() {
        for prefix in ["item-", "L", "4f1c9a2e-77b0-4d2a-9c3e-"] {
            let table = ItemTable()
            for index in 0..<64_000 { table.updateValue(Self.item("\(prefix)\(index)")) }
            let sizes = table.shardSizes
            #expect(sizes.count == ItemTable.shardCount)
            // 1,000 per shard on average; an even spread stays well within a factor of 1.5.
            #expect(sizes.min()! > 667 && sizes.max()! < 1_500, "\(prefix): \(sizes.min()!)...\(sizes.max()!)")
        }
    }

    @Test("inserting through modifyOrInsert keeps every shard at most half full, whatever the count")
    func halfFull() {
        let table = ItemTable()
        for index in 0..<20_000 {
            _ = table.modifyOrInsert(
                forKey: "item-\(index)", insert: { Self.item("item-\(index)") }, update: { _ in () })
            // `capacity` is half the slots, in every shard; at most half full means a count of
            // at most the capacity, in every shard, so in all of them together.
            if index >= 4_096 && (index % 997 == 0 || index == 19_999) {
                #expect(
                    table.count <= table.capacity, "at \(index + 1): \(table.count) in a capacity of \(table.capacity)")
            }
        }
        #expect(table.count == 20_000)
    }
}
