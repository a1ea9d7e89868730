import RowCastClient

/// A replica seen as one scrollable list of lines: each section's header line, then one line
/// per row of it, section after section.
///
/// Built in time proportional to the number of sections (a running total of line counts),
/// never the number of rows, so that finding the lines of the visible window of a feed of a
/// million rows costs a binary search over its sections and a direct index into its rows.
public struct FeedLines: Sendable, Equatable {
    /// What one line shows.
    public enum Line: Sendable, Equatable {
        /// The header of section `section`.
        case header(section: Int)
        /// Row `row` of section `section`.
        case row(RowIndexPath)
    }

    /// The line index of each section's header, in section order.
    private let sectionStarts: [Int]
    /// How many lines there are in all.
    public let count: Int

    /// The lines of `replica`.
    public init(_ replica: FeedReplica) {
        var starts: [Int] = []
        starts.reserveCapacity(replica.sections.count)
        var total = 0
        for section in replica.sections {
            starts.append(total)
            total += 1 + section.rows.count
        }
        sectionStarts = starts
        count = total
    }

    /// What line `index` (0 ..< ``count``) shows.
    public func line(at index: Int) -> Line {
        precondition(index >= 0 && index < count, "line \(index) is outside 0..<\(count)")
        // The last section whose start is at or before `index`.
        var low = 0
        var high = sectionStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if sectionStarts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        let offset = index - sectionStarts[low]
        return offset == 0 ? .header(section: low) : .row(RowIndexPath(section: low, row: offset - 1))
    }

    /// The line index of the row at `path`.
    public func index(of path: RowIndexPath) -> Int {
        sectionStarts[path.section] + 1 + path.row
    }

    /// The line index of the header of section `section`.
    public func index(ofSection section: Int) -> Int {
        sectionStarts[section]
    }
}
