@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastTesting
import Testing

/// ``ItemTableShard`` under chosen hashes, against a `[String: StoredItem]`: the seeded hash
/// spreads ids too well to make long runs, wrap-arounds and equal hashes on purpose.
struct ItemTableShardTests {
    /// The hash the test gives id number `number`: a third of the ids share eleven hashes
    /// (long runs from the first slots, equal hashes of different ids), a third have hashes
    /// whose low bits are all ones (runs that wrap past the last slot), a third spread.
    static func hash(_ number: Int) -> Int {
        switch number % 3 {
        case 0: number % 11
        case 1: -1 - number % 7
        default: Int(truncatingIfNeeded: UInt64(number) &* 0x9E37_79B9_7F4A_7C15)
        }
    }

    /// Expects `shard` to hold exactly the items of `reference` (their numbers in `numbers`),
    /// found by lookup and by a walk of its slots, and to be at most half full.
    static func expectSame(
        _ shard: borrowing ItemTableShard, _ reference: [String: StoredItem], _ numbers: [String: Int],
        _ context: @autoclosure () -> String
    ) -> Bool {
        guard shard.count == reference.count, shard.count <= shard.capacity else {
            Issue.record(
                "\(context()): \(shard.count) items in a capacity of \(shard.capacity), expected \(reference.count)")
            return false
        }
        for (id, item) in reference where shard.item(id, hash: hash(numbers[id]!)) !== item {
            Issue.record("\(context()): \(id) not found")
            return false
        }
        var walked = 0
        for index in 0..<shard.slotCount {
            guard let item = shard.item(at: index) else { continue }
            walked += 1
            if reference[item.input.id] !== item {
                Issue.record("\(context()): slot \(index) holds \(item.input.id), not stored"); return false
            }
        }
        if walked != reference.count { Issue.record("\(context()): the slots hold \(walked) items"); return false }
        return true
    }

    @Test(
        "inserts, replacements and removals with colliding and wrapping hashes agree with a Dictionary after every step, through several doublings and delete-heavy phases"
    )
    func matchesDictionary() {
        var random = SplitMix64(state: 19)
        var shard = ItemTableShard()
        var reference: [String: StoredItem] = [:]
        var numbers: [String: Int] = [:]
        // (steps, id range, chance in 8 of a removal): growth to a few hundred items (4 to at
        // least 512 slots: seven doublings or more), removals down to a few, growth again, a
        // small crowded range.
        let phases = [(1_500, 600, 1), (1_500, 600, 7), (1_500, 600, 2), (1_000, 600, 6), (1_500, 40, 4)]
        var step = 0
        var mostSlots = 0
        for (steps, range, removals) in phases {
            for _ in 0..<steps {
                step += 1
                let number = Int.random(in: 0..<range, using: &random)
                let id = "e2e-\(number)"
                numbers[id] = number
                let hash = Self.hash(number)
                if Int.random(in: 0..<8, using: &random) < removals {
                    #expect(
                        shard.remove(id, hash: hash) === reference.removeValue(forKey: id),
                        "step \(step): removing \(id)")
                } else if reference[id] == nil && Bool.random(using: &random) {
                    let item = ItemTableTests.item(id, step)
                    shard.insertNew(item, hash: hash)
                    reference[id] = item
                } else {
                    let item = ItemTableTests.item(id, step)
                    #expect(
                        shard.update(item, id: id, hash: hash) === reference.updateValue(item, forKey: id),
                        "step \(step): storing \(id)")
                }
                guard Self.expectSame(shard, reference, numbers, "step \(step)") else { return }
                mostSlots = max(mostSlots, shard.slotCount)
            }
        }
        #expect(mostSlots >= 512)
        shard.removeAll(keepingCapacity: true)
        #expect(shard.count == 0 && shard.slotCount > 0 && shard.item("e2e-0", hash: Self.hash(0)) == nil)
        shard.removeAll(keepingCapacity: false)
        #expect(shard.count == 0 && shard.slotCount == 0 && shard.item(at: 0) == nil)
    }

    @Test("an item removed from the middle of a run that wraps past the last slot leaves the rest reachable")
    func removalInWrappedRun() {
        var shard = ItemTableShard()
        let items = (0..<6).map { ItemTableTests.item("w\($0)") }
        // Eight slots hold up to four; all four start at the last slot and wrap.
        for item in items.prefix(4) { shard.insertNew(item, hash: -1) }
        #expect(shard.slotCount == 8)
        #expect(shard.remove("w1", hash: -1) === items[1])
        for index in [0, 2, 3] { #expect(shard.item("w\(index)", hash: -1) === items[index]) }
        #expect(shard.item("w1", hash: -1) == nil && shard.count == 3)
        #expect(shard.remove("w0", hash: -1) === items[0] && shard.remove("w3", hash: -1) === items[3])
        #expect(shard.item("w2", hash: -1) === items[2] && shard.count == 1)
    }
}
