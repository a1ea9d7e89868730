@testable import RowCastCore
import RowCastTesting
import Testing

struct ShardedDictionaryTests {
    @Test("reserving room for a few entries reserves nothing (a restored one-item feed stays small); for many, room for all")
    func reservation() {
        var small = ShardedDictionary<Int>()
        small.reserveCapacity(1)
        #expect(small.capacity == 0)
        small["a"] = 1
        #expect(small.capacity < 16)
        var large = ShardedDictionary<Int>()
        large.reserveCapacity(100_000)
        #expect(large.capacity >= 100_000)
        #expect(large.capacity <= 300_000)
    }

    @Test("lookups, in-place changes, removals and iteration agree with a Dictionary")
    func matchesDictionary() {
        var random = SplitMix64(state: 7)
        var sharded = ShardedDictionary<Int>()
        var reference: [String: Int] = [:]
        for step in 0..<30_000 {
            let key = "k\(Int.random(in: 0..<5_000, using: &random))"
            switch Int.random(in: 0..<5, using: &random) {
            case 0, 1:
                sharded[key] = step
                reference[key] = step
            case 2:
                if Bool.random(using: &random) {
                    sharded[key]? += 1
                    reference[key]? += 1
                } else {
                    #expect(sharded.updateValue(step, forKey: key) == reference.updateValue(step, forKey: key))
                }
            case 3:
                let changed = sharded.modifyValue(forKey: key) { value -> Int in
                    value *= 2
                    return value
                }
                #expect(changed == reference[key].map { $0 * 2 })
                reference[key]? *= 2
            default:
                if Bool.random(using: &random) {
                    #expect(sharded.removeValue(forKey: key) == reference.removeValue(forKey: key))
                } else {
                    sharded[key] = nil
                    reference[key] = nil
                }
            }
            #expect(sharded[key] == reference[key])
            #expect(sharded.count == reference.count)
        }
        #expect(Dictionary(uniqueKeysWithValues: sharded.map { ($0.key, $0.value) }) == reference)
        var visited: [String: Int] = [:]
        sharded.forEachEntry { key, value in visited[key] = value }
        #expect(visited == reference)
        #expect(sharded.withValue(forKey: "absent") { $0 } == nil)
        #expect(Set(sharded.keys) == Set(reference.keys))
        #expect(sharded.values.sorted() == reference.values.sorted())
        sharded.removeAll(keepingCapacity: true)
        #expect(sharded.isEmpty && sharded.map(\.key).isEmpty)
    }

    @Test("reserving capacity keeps contents and counts")
    func reserve() {
        var sharded = ShardedDictionary<Int>()
        sharded["a"] = 1
        sharded.reserveCapacity(100_000)
        for index in 0..<1_000 { sharded["k\(index)"] = index }
        #expect(sharded.count == 1_001 && sharded["a"] == 1 && sharded["k999"] == 999)
    }

    @Test("keys spread evenly over the shards, for sequential and random-looking ids")
    func spreadsEvenly() {
        for prefix in ["item-", "L", "4f1c9a2e-77b0-4d2a-9c3e-"] {
            var sharded = ShardedDictionary<Int>()
            for index in 0..<64_000 { sharded["\(prefix)\(index)"] = index }
            let sizes = sharded.shardSizes
            #expect(sizes.count == ShardedDictionary<Int>.shardCount)
            // 1,000 per shard on average; an even spread stays well within a factor of 1.5.
            #expect(sizes.min()! > 667 && sizes.max()! < 1_500, "\(prefix): \(sizes.min()!)...\(sizes.max()!)")
        }
    }

    @Test("inserting through modifyOrInsert keeps every shard at most half full, whatever the count")
    func halfFull() {
        var sharded = ShardedDictionary<Int>()
        for index in 0..<20_000 {
            _ = sharded.modifyOrInsert(forKey: "item-\(index)", insert: { index }, update: { _ in () })
            // A Dictionary's capacity is three quarters of its buckets (from 4 buckets on; a
            // shard of one entry has 2 buckets and a capacity of 1): half full means a count of
            // at most two thirds of the capacity, in every shard, so in all of them together.
            if index >= 4_096 && (index % 997 == 0 || index == 19_999) {
                #expect(sharded.count * 3 <= sharded.capacity * 2, "at \(index + 1): \(sharded.count) in a capacity of \(sharded.capacity)")
            }
        }
        #expect(sharded.count == 20_000)
    }
}
