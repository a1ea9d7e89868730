/// The unit feeds are spread by: every feed belongs to one of `Partition.count` partitions,
/// fixed by its name alone, so that any process that knows a feed's name knows its partition
/// without asking (docs/PROTOCOL.md, "Partitions").
///
/// The partition of a feed is the 32-bit FNV-1a hash of its name's UTF-8 bytes, modulo
/// `count`. Both the hash and the count are to decide where a feed lives (which engine thread
/// runs it, which node holds its lease, which store rows a node loads), so they never change.
/// The store can load the feeds of a set of partitions (`feeds(inPartitions:)`), and an engine
/// can serve a set of partitions only (`Engine.servedPartitions`); rowcastd runs one engine
/// that serves them all.
public struct Partition: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// How many partitions there are.
    public static let count = 256

    /// The partition's number, from 0 to `count - 1`.
    public let index: Int

    /// Partition number `index`; nil when it is not below `count`.
    public init?(index: Int) {
        guard (0..<Self.count).contains(index) else { return nil }
        self.index = index
    }

    /// The partition of the feed named `feed`.
    public init(feed: String) {
        var hash: UInt32 = 2_166_136_261
        for byte in feed.utf8 {
            hash ^= UInt32(byte)
            hash &*= 16_777_619
        }
        index = Int(hash % UInt32(Self.count))
    }

    /// Every partition, in order.
    public static var all: [Partition] { (0..<count).map { Partition(uncheckedIndex: $0) } }

    /// Orders by number.
    public static func < (lhs: Partition, rhs: Partition) -> Bool { lhs.index < rhs.index }

    /// `partition N`.
    public var description: String { "partition \(index)" }

    private init(uncheckedIndex index: Int) { self.index = index }
}
