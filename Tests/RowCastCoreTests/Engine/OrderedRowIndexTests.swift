@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastTesting
import Testing

struct OrderedRowIndexTests {
    @Test("ranks, inserts and removes agree with a sorted array, across block splits")
    func matchesSortedArray() {
        var random = SplitMix64(state: 99)
        var index = OrderedRowIndex()
        var reference: [OrderKey] = []
        var arrival: UInt64 = 0
        for step in 0..<20_000 {
            if reference.isEmpty || Int.random(in: 0..<3, using: &random) > 0 {
                arrival += 1
                let key = OrderKey(primary: Double(Int.random(in: -5..<5, using: &random)), arrival: arrival)
                index.insert(key, id: "r\(arrival)")
                reference.insert(key, at: reference.firstIndex { key < $0 } ?? reference.count)
            } else {
                let victim = reference.remove(at: Int.random(in: 0..<reference.count, using: &random))
                let removed = index.remove(victim)
                #expect(removed)
            }
            if step % 997 == 0 || step == 19_999 {
                #expect(index.count == reference.count)
                var position = 0
                var ordered = true
                index.forEach { entry in
                    if reference[position] != entry.key { ordered = false }
                    position += 1
                }
                #expect(ordered)
                for probe in 0..<min(50, reference.count) {
                    let target = Int.random(in: 0..<reference.count, using: &random)
                    #expect(index.rank(of: reference[target]) == target, "probe \(probe)")
                    #expect(index.position(of: reference[target]) == target, "probe \(probe)")
                }
            }
        }
        #expect(index.position(of: OrderKey(primary: 100, arrival: 0)) == nil)
        let missing = index.remove(OrderKey(primary: 100, arrival: 0))
        #expect(!missing)
    }

    @Test("rows arriving in order fill whole blocks, and rows placed anywhere after them still rank right")
    func inOrderThenAnywhere() {
        var random = SplitMix64(state: 7)
        var index = OrderedRowIndex()
        var reference: [OrderKey] = []
        var arrival: UInt64 = 0
        func check(_ label: String) {
            #expect(index.count == reference.count, "\(label)")
            var position = 0
            var ordered = true
            index.forEach { entry in
                if reference[position] != entry.key { ordered = false }
                position += 1
            }
            #expect(ordered, "\(label)")
            for target in stride(from: 0, to: reference.count, by: max(1, reference.count / 97)) + [reference.count - 1]
            {
                #expect(index.rank(of: reference[target]) == target, "\(label) rank \(target)")
                #expect(index.position(of: reference[target]) == target, "\(label) position \(target)")
            }
        }
        for _ in 0..<5_000 {
            arrival += 1
            let key = OrderKey(primary: 0, arrival: arrival)
            let placed = index.insert(key, id: "r\(arrival)")
            reference.append(key)
            #expect(placed == reference.count - 1)
            #expect(index.rank(of: key) == reference.count - 1)
        }
        #expect(index.blockCount == (5_000 + OrderedRowIndex.maximumBlockSize - 1) / OrderedRowIndex.maximumBlockSize)
        check("in order")
        for step in 0..<6_000 {
            arrival += 1
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let victim = reference.remove(at: Int.random(in: 0..<reference.count, using: &random))
                let removed = index.remove(victim)
                #expect(removed)
            case 1:
                let key = OrderKey(primary: -1 + Double(Int.random(in: 0..<3, using: &random)), arrival: arrival)
                let placed = index.insert(key, id: "r\(arrival)")
                let at = reference.firstIndex { key < $0 } ?? reference.count
                reference.insert(key, at: at)
                // A position only for a row placed after every other.
                #expect(placed == (at == reference.count - 1 ? at : nil))
            default:
                let key = OrderKey(primary: 1, arrival: arrival)
                let placed = index.insert(key, id: "r\(arrival)")
                reference.append(key)
                #expect(placed == reference.count - 1)
            }
            if step % 1_499 == 0 { check("step \(step)") }
        }
        check("end")
    }

    @Test("bulk load keeps order and ranks")
    func bulkLoad() {
        let entries = (0..<5000).map {
            OrderedRowIndex.Entry(key: OrderKey(primary: 0, arrival: UInt64($0)), id: "\($0)")
        }
        var index = OrderedRowIndex(sorted: entries)
        #expect(index.count == 5000)
        #expect(index.rank(of: OrderKey(primary: 0, arrival: 4321)) == 4321)
        index.insert(OrderKey(primary: -1, arrival: 9999), id: "first")
        #expect(index.ids.first == "first")
        #expect(index.rank(of: OrderKey(primary: 0, arrival: 4321)) == 4322)
    }
}
