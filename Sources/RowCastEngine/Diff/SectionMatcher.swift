/// Matches the old and new section lists of a feed by id: which sections were deleted,
/// inserted, moved (the fewest moves, by longest increasing subsequence) or updated. Both the
/// full diff and the incremental path use it; section lists are short.
struct SectionMatcher {
    /// A section as the matcher sees it: identity and object bytes.
    struct Summary {
        var id: String
        var bytes: [UInt8]
    }

    /// Old index → deleted?
    private(set) var oldDeleted: [Bool]
    /// New index → inserted?
    private(set) var newInserted: [Bool]
    /// Old index of each section id.
    private(set) var oldIndex: [String: Int]

    /// Matches `old` to `new`, recording section deletes, moves and updates in `delta`, and
    /// the ids and indexes of inserted sections in `inserted` (their rows are the caller's to add).
    init(old: [Summary], new: [Summary], into delta: inout FeedDelta, inserted: inout [(id: String, at: Int)]) {
        oldIndex = Dictionary(minimumCapacity: old.count)
        for (index, section) in old.enumerated() { oldIndex[section.id] = index }
        var newIndex: [String: Int] = Dictionary(minimumCapacity: new.count)
        for (index, section) in new.enumerated() { newIndex[section.id] = index }

        oldDeleted = Array(repeating: false, count: old.count)
        newInserted = Array(repeating: false, count: new.count)
        for (index, section) in old.enumerated() where newIndex[section.id] == nil {
            oldDeleted[index] = true
            delta.deletedSections.append(.init(id: section.id, at: index))
        }
        var commonOld: [Int] = []
        var commonNew: [Int] = []
        for (index, section) in new.enumerated() {
            if let previous = oldIndex[section.id] {
                commonOld.append(previous)
                commonNew.append(index)
            } else {
                newInserted[index] = true
                inserted.append((section.id, index))
            }
        }
        let kept = Set(LongestIncreasingSubsequence.positions(in: commonOld))
        for position in commonOld.indices {
            let from = commonOld[position]
            let to = commonNew[position]
            let section = new[to]
            if !kept.contains(position) { delta.movedSections.append(.init(id: section.id, from: from, to: to)) }
            if old[from].bytes != section.bytes {
                delta.updatedSections.append(.init(id: section.id, at: to, section: section.bytes))
            }
        }
    }
}
