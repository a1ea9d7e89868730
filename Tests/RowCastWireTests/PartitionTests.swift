import RowCastWire
import Testing

/// The partition of a feed is part of where it lives: these values must never change.
struct PartitionTests {
    @Test(
        "a feed's partition is FNV-1a (32-bit) of its name's UTF-8 bytes modulo 256, the same everywhere and forever",
        arguments: [
            ("", 197), ("a", 44), ("cars", 214), ("items", 143), ("profile", 238), ("é€😀", 6), ("feed-0001", 171),
        ])
    func goldenValues(feed: String, index: Int) {
        #expect(Partition(feed: feed).index == index)
        #expect(Partition(feed: feed) == Partition(index: index))
    }

    @Test("partition numbers run from 0 to 255; others are refused")
    func bounds() {
        #expect(Partition.count == 256)
        #expect(Partition.all.map(\.index) == Array(0..<256))
        #expect(Partition(index: -1) == nil && Partition(index: 256) == nil)
        #expect(Partition(index: 255)?.description == "partition 255")
        #expect(Partition(index: 3)! < Partition(index: 4)!)
    }

    @Test("feed names of one family spread over every partition, none with more than twice its share")
    func spread() {
        var counts = [Int](repeating: 0, count: Partition.count)
        for number in 0..<25_600 { counts[Partition(feed: "user-\(number)").index] += 1 }
        #expect(
            counts.allSatisfy { $0 > 0 && $0 <= 200 },
            "min \(counts.min()!), max \(counts.max()!) of 100 each on average")
    }
}
