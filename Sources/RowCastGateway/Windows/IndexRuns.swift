/// A set of row indexes held as sorted, disjoint, non-adjacent runs, with the counts that let
/// a window map an index through a delta in logarithmic time: how many members lie below an
/// index, and the n-th index that is not a member.
struct IndexRuns: Equatable {
    /// The runs, ascending.
    private(set) var runs: [Range<Int>] = []
    /// `before[i]`: how many members lie in the runs before `runs[i]`.
    private var before: [Int] = []

    /// The set of every index in `ranges` (in any order, overlapping or not).
    init(_ ranges: [Range<Int>]) {
        for range in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = runs.last, range.lowerBound <= last.upperBound {
                runs[runs.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                runs.append(range)
            }
        }
        var total = 0
        before.reserveCapacity(runs.count)
        for run in runs {
            before.append(total)
            total += run.count
        }
    }

    /// Whether no index is a member.
    var isEmpty: Bool { runs.isEmpty }

    /// The first member, or `nil` when empty.
    var first: Int? { runs.first?.lowerBound }

    /// The index of the last run starting at or below `index`, or `nil`.
    private func lastRun(startingAtOrBelow index: Int) -> Int? {
        var low = 0
        var high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].lowerBound <= index { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }

    /// Whether `index` is a member.
    func contains(_ index: Int) -> Bool {
        guard let run = lastRun(startingAtOrBelow: index) else { return false }
        return runs[run].contains(index)
    }

    /// How many members are below `index`.
    func count(below index: Int) -> Int {
        guard let run = lastRun(startingAtOrBelow: index - 1) else { return 0 }
        return before[run] + min(index, runs[run].upperBound) - runs[run].lowerBound
    }

    /// Whether some member lies in `range`.
    func intersects(_ range: Range<Int>) -> Bool {
        !range.isEmpty && count(below: range.upperBound) > count(below: range.lowerBound)
    }

    /// The `rank`-th index (from 0) that is not a member.
    func nonMember(_ rank: Int) -> Int {
        // Before run i lie `lowerBound - before[i]` non-members; find the last run with at most
        // `rank` of them, and step over it and every run before it.
        var low = 0
        var high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].lowerBound - before[middle] <= rank { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return rank }
        return rank + before[low - 1] + runs[low - 1].count
    }

    /// The last non-member below `index`, or `nil` when every index below it is a member.
    func lastNonMember(below index: Int) -> Int? {
        var candidate = index - 1
        while candidate >= 0, let run = lastRun(startingAtOrBelow: candidate), runs[run].contains(candidate) {
            candidate = runs[run].lowerBound - 1
        }
        return candidate >= 0 ? candidate : nil
    }
}
