/// The rows of one section in order, with their positions: an order-statistic list kept as
/// sorted blocks of at most `maximumBlockSize` entries.
///
/// Finding an entry is a binary search over blocks, then within one block; its position is the
/// sum of the sizes of the blocks before it, read from a Fenwick tree over the block sizes in
/// O(log blocks). Insert and remove move at most one block's worth of entries and update the
/// tree in O(log blocks); a split or an emptied block rebuilds it in O(blocks). For a million
/// rows that is about 1,300 blocks: a rank is a few dozen steps, against the milliseconds a
/// full sort or diff would take.
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
    /// A Fenwick tree over the blocks' sizes (1-based: `sizes[i]` covers blocks `i - (i & -i)`
    /// up to `i - 1`), so the number of rows before a block is a sum of O(log blocks) terms.
    private var sizes: [Int] = [0]
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
        rebuildSizes()
    }

    /// How many blocks hold the rows.
    var blockCount: Int { blocks.count }

    /// Whether the section has no rows.
    var isEmpty: Bool { count == 0 }

    /// Adds an entry; its key must not be present already. Returns its position when it went
    /// after every other row (as rows arriving in order do), nil when it went before some: the
    /// position stays right as long as only rows after it are added.
    @discardableResult
    mutating func insert(_ key: OrderKey, id: String, row: [UInt8] = []) -> Int? {
        let entry = Entry(key: key, id: id, row: row)
        guard !blocks.isEmpty else {
            blocks = [[entry]]
            count = 1
            rebuildSizes()
            return 0
        }
        let blockIndex = block(for: key)
        let position = Self.lowerBound(of: key, in: blocks[blockIndex])
        count += 1
        let isLast = position == blocks[blockIndex].count && blockIndex == blocks.count - 1
        if isLast, position == Self.maximumBlockSize {
            // After every row (as rows arriving in order go) and the last block full: a new
            // block, made with room for a whole block. Split in half, a block filled in order
            // stayed half full (512 rows) in an array grown to room for 2,048.
            var block: [Entry] = []
            block.reserveCapacity(Self.maximumBlockSize)
            block.append(entry)
            blocks.append(block)
            rebuildSizes()
            return count - 1
        }
        blocks[blockIndex].insert(entry, at: position)
        if blocks[blockIndex].count > Self.maximumBlockSize {
            let half = blocks[blockIndex].count / 2
            let tail = Array(blocks[blockIndex][half...])
            blocks[blockIndex].removeSubrange(half...)
            blocks.insert(tail, at: blockIndex + 1)
            rebuildSizes()
        } else {
            addSize(1, toBlock: blockIndex)
        }
        return isLast ? count - 1 : nil
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
        if blocks[blockIndex].isEmpty {
            blocks.remove(at: blockIndex)
            rebuildSizes()
        } else {
            addSize(-1, toBlock: blockIndex)
        }
        return true
    }

    /// The position of the entry with `key` (or where it would go).
    func rank(of key: OrderKey) -> Int {
        guard !blocks.isEmpty else { return 0 }
        let blockIndex = block(for: key)
        return rowsBefore(block: blockIndex) + Self.lowerBound(of: key, in: blocks[blockIndex])
    }

    /// The position of the entry with `key`, or nil when there is none.
    func position(of key: OrderKey) -> Int? {
        guard !blocks.isEmpty else { return nil }
        let blockIndex = block(for: key)
        let offset = Self.lowerBound(of: key, in: blocks[blockIndex])
        guard offset < blocks[blockIndex].count, blocks[blockIndex][offset].key == key else { return nil }
        return rowsBefore(block: blockIndex) + offset
    }

    /// Calls `body` with every entry, in order.
    func forEach(_ body: (Entry) throws -> Void) rethrows {
        for block in blocks {
            for entry in block { try body(entry) }
        }
    }

    /// The entries at positions `range` (clamped to the rows there are), in order; whole
    /// blocks before the range are skipped by their sizes.
    func entries(in range: Range<Int>) -> [Entry] {
        var result: [Entry] = []
        result.reserveCapacity(max(0, min(range.upperBound, count) - range.lowerBound))
        var position = 0
        for block in blocks {
            if position >= range.upperBound { break }
            let end = position + block.count
            if end > range.lowerBound {
                let from = max(range.lowerBound - position, 0)
                let to = min(range.upperBound - position, block.count)
                result.append(contentsOf: block[from..<to])
            }
            position = end
        }
        return result
    }

    /// Every id, in order.
    var ids: [String] {
        var result: [String] = []
        result.reserveCapacity(count)
        forEach { result.append($0.id) }
        return result
    }

    /// How many rows the blocks before `block` hold (O(log blocks)).
    private func rowsBefore(block: Int) -> Int {
        var index = block
        var total = 0
        while index > 0 {
            total += sizes[index]
            index -= index & -index
        }
        return total
    }

    /// Adds `delta` to the size of block `block` in the tree.
    private mutating func addSize(_ delta: Int, toBlock block: Int) {
        var index = block + 1
        while index < sizes.count {
            sizes[index] += delta
            index += index & -index
        }
    }

    /// Rebuilds the tree from the blocks (after a split or an emptied block), in O(blocks).
    private mutating func rebuildSizes() {
        // Each block's count read in place: `blocks.map(\.count)` retained and released every
        // block (a cache miss each, for a thousand blocks, at every split of a growing section).
        sizes.removeAll(keepingCapacity: true)
        sizes.reserveCapacity(blocks.count + 1)
        sizes.append(0)
        for index in blocks.indices { sizes.append(blocks[index].count) }
        for index in 1..<sizes.count {
            let parent = index + (index & -index)
            if parent < sizes.count { sizes[parent] += sizes[index] }
        }
    }

    /// The block that holds `key`, or should: the first whose last key is not below it. The
    /// last block is tried first (rows arriving in order go there, and are looked for there
    /// next): it is the one when the block before it ends below `key`.
    private func block(for key: OrderKey) -> Int {
        let last = blocks.count - 1
        if last == 0 || blocks[last - 1][blocks[last - 1].count - 1].key < key { return last }
        var low = 0
        var high = last - 1
        while low < high {
            let middle = (low + high) / 2
            if blocks[middle][blocks[middle].count - 1].key < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The offset of the first entry of `block` whose key is not below `key` (the block's count
    /// when there is none). The block's end is tried first, for rows arriving in order; keys
    /// are unique, so an end entry with `key` is the one.
    private static func lowerBound(of key: OrderKey, in block: [Entry]) -> Int {
        let end = block.count - 1
        if end >= 0 {
            let endKey = block[end].key
            if endKey < key { return block.count }
            if endKey == key { return end }
        }
        var low = 0
        var high = block.count
        while low < high {
            let middle = (low + high) / 2
            if block[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
