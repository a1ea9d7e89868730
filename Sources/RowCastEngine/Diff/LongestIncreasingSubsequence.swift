/// The longest strictly increasing subsequence of a sequence of distinct integers, by patience
/// sorting in O(n log n). The diff keeps these elements in place and moves the rest, which is
/// the smallest set of moves that leaves everything else in relative order.
enum LongestIncreasingSubsequence {
    /// The positions (into `values`) of one longest increasing subsequence, ascending.
    static func positions(in values: [Int]) -> [Int] {
        guard !values.isEmpty else { return [] }
        var tailPositions: [Int] = []  // tailPositions[k]: position of the smallest tail of a run of length k+1
        tailPositions.reserveCapacity(values.count)
        var predecessor = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0
            var high = tailPositions.count
            while low < high {
                let middle = (low + high) / 2
                if values[tailPositions[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { predecessor[position] = tailPositions[low - 1] }
            if low == tailPositions.count { tailPositions.append(position) } else { tailPositions[low] = position }
        }
        var result = [Int](repeating: 0, count: tailPositions.count)
        var cursor = tailPositions[tailPositions.count - 1]
        for slot in stride(from: result.count - 1, through: 0, by: -1) {
            result[slot] = cursor
            cursor = predecessor[cursor]
        }
        return result
    }
}
