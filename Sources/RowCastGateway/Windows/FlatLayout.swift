import RowCastClient

/// Where each section of a feed starts in the feed's flat row order (its rows counted over
/// every section in order, as a table view numbers them and as windows count): turns an index
/// path into a flat index and back.
struct FlatLayout: Equatable {
    /// `starts[s]`: the flat index of section `s`'s first row; one more entry holds the total.
    private(set) var starts: [Int]

    /// The layout of sections holding `counts` rows each.
    init(counts: [Int]) {
        var starts = [0]
        starts.reserveCapacity(counts.count + 1)
        for count in counts { starts.append(starts.last! + count) }
        self.starts = starts
    }

    /// The layout of `replica`'s sections.
    init(_ replica: FeedReplica) {
        self.init(counts: replica.sections.map(\.rows.count))
    }

    /// How many rows there are.
    var total: Int { starts.last! }

    /// How many sections there are.
    var sectionCount: Int { starts.count - 1 }

    /// The flat range of section `section`'s rows (empty for an index out of bounds).
    func rows(ofSection section: Int) -> Range<Int> {
        guard section >= 0, section < sectionCount else { return 0..<0 }
        return starts[section]..<starts[section + 1]
    }

    /// The flat index of row `row` of section `section`, or `nil` when the section is out of
    /// bounds.
    func flat(section: Int, row: Int) -> Int? {
        guard section >= 0, section < sectionCount, row >= 0 else { return nil }
        return starts[section] + row
    }

    /// The section and row of flat index `index` (which must be below ``total``).
    func indexPath(of index: Int) -> (section: Int, row: Int) {
        // The last section starting at or below the index that has a row there.
        var low = 0
        var high = sectionCount
        while low < high {
            let middle = (low + high) / 2
            if starts[middle + 1] <= index { low = middle + 1 } else { high = middle }
        }
        return (low, index - starts[low])
    }
}
