/// The rows of one section in order, with their positions: an order-statistic list kept as
/// sorted blocks of at most `maximumBlockSize` entries.
///
/// Finding an entry is a binary search over blocks, then within one block; its position is the
/// sum of the sizes of the blocks before it. Insert and remove move at most one block's worth
/// of entries. For a million rows that is about 1,300 blocks: a rank costs a few microseconds,
/// against the milliseconds a full sort or diff would.
struct OrderedRowIndex {
    /// One row: its order key (unique within a feed, since first-arrival ranks are), id and
    /// bytes (shared with the stored item's row, not copied), so that a snapshot is written
    /// from the index alone, on any thread (``FeedView``).
    struct Entry {
        var key: OrderKey
        var id: String
        var row: [UInt8] = []
    }

    /// Blocks split when they grow past this many entries.
    static let maximumBlockSize = 1024

    private var blocks: [[Entry]] = []
    /// How many rows the section has.
    private(set) var count = 0

    /// An empty index.
    init() {}

    /// An index of entries already sorted by key (bulk load, O(n)).
    init(sorted entries: [Entry]) {
        let size = Self.maximumBlockSize / 2
        var start = 0
        while start < entries.count {
            let end = min(start + size, entries.count)
            blocks.append(Array(entries[start..<end]))
            start = end
        }
        count = entries.count
    }

    /// Whether the section has no rows.
    var isEmpty: Bool { count == 0 }

    /// Adds an entry; its key must not be present already.
    mutating func insert(_ key: OrderKey, id: String, row: [UInt8] = []) {
        let entry = Entry(key: key, id: id, row: row)
        guard !blocks.isEmpty else {
            blocks = [[entry]]
            count = 1
            return
        }
        let blockIndex = block(for: key)
        let position = Self.lowerBound(of: key, in: blocks[blockIndex])
        blocks[blockIndex].insert(entry, at: position)
        count += 1
        if blocks[blockIndex].count > Self.maximumBlockSize {
            let half = blocks[blockIndex].count / 2
            let tail = Array(blocks[blockIndex][half...])
            blocks[blockIndex].removeSubrange(half...)
            blocks.insert(tail, at: blockIndex + 1)
        }
    }

    /// Removes the entry with `key`; false when there is none.
    @discardableResult
    mutating func remove(_ key: OrderKey) -> Bool {
        guard !blocks.isEmpty else { return false }
        let blockIndex = block(for: key)
        let position = Self.lowerBound(of: key, in: blocks[blockIndex])
        guard position < blocks[blockIndex].count, blocks[blockIndex][position].key == key else { return false }
        blocks[blockIndex].remove(at: position)
        count -= 1
        if blocks[blockIndex].isEmpty { blocks.remove(at: blockIndex) }
        return true
    }

    /// The position of the entry with `key` (or where it would go).
    func rank(of key: OrderKey) -> Int {
        guard !blocks.isEmpty else { return 0 }
        let blockIndex = block(for: key)
        var before = 0
        for index in 0..<blockIndex { before += blocks[index].count }
        return before + Self.lowerBound(of: key, in: blocks[blockIndex])
    }

    /// The position of the entry with `key`, or nil when there is none.
    func position(of key: OrderKey) -> Int? {
        guard !blocks.isEmpty else { return nil }
        let blockIndex = block(for: key)
        let offset = Self.lowerBound(of: key, in: blocks[blockIndex])
        guard offset < blocks[blockIndex].count, blocks[blockIndex][offset].key == key else { return nil }
        var before = 0
        for index in 0..<blockIndex { before += blocks[index].count }
        return before + offset
    }

    /// Calls `body` with every entry, in order.
    func forEach(_ body: (Entry) throws -> Void) rethrows {
        for block in blocks {
            for entry in block { try body(entry) }
        }
    }

    /// Every id, in order.
    var ids: [String] {
        var result: [String] = []
        result.reserveCapacity(count)
        forEach { result.append($0.id) }
        return result
    }

    /// The block that holds `key`, or should: the first whose last key is not below it.
    private func block(for key: OrderKey) -> Int {
        var low = 0
        var high = blocks.count - 1
        while low < high {
            let middle = (low + high) / 2
            if blocks[middle][blocks[middle].count - 1].key < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private static func lowerBound(of key: OrderKey, in block: [Entry]) -> Int {
        var low = 0
        var high = block.count
        while low < high {
            let middle = (low + high) / 2
            if block[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
