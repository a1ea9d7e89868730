/// Computes the delta between two snapshots of a feed: sections matched by id, rows matched by
/// id across the whole feed, moves found with a longest increasing subsequence so that every
/// row not named keeps its relative order (the rule a UIKit batch update relies on).
///
/// Cost: O(n log n) in the number of rows of both snapshots, with one hash lookup per row.
public enum SnapshotDiff {
    /// The delta that turns `old` into `new`. Section ids and row ids must be unique in each.
    public static func delta(from old: FeedSnapshot, to new: FeedSnapshot) -> FeedDelta {
        var delta = FeedDelta()
        let sectionMatch = matchSections(old: old, new: new, into: &delta)
        diffRows(old: old, new: new, sections: sectionMatch, into: &delta)
        return delta
    }

    /// Which old sections were deleted and which new ones inserted.
    private struct SectionMatch {
        var oldDeleted: [Bool]
        var newInserted: [Bool]
    }

    private static func matchSections(old: FeedSnapshot, new: FeedSnapshot, into delta: inout FeedDelta) -> SectionMatch {
        var oldIndex: [String: Int] = [:]
        oldIndex.reserveCapacity(old.sections.count)
        for (index, section) in old.sections.enumerated() { oldIndex[section.id] = index }
        var newIndex: [String: Int] = [:]
        newIndex.reserveCapacity(new.sections.count)
        for (index, section) in new.sections.enumerated() { newIndex[section.id] = index }

        var match = SectionMatch(oldDeleted: Array(repeating: false, count: old.sections.count),
                                 newInserted: Array(repeating: false, count: new.sections.count))
        for (index, section) in old.sections.enumerated() where newIndex[section.id] == nil {
            match.oldDeleted[index] = true
            delta.deletedSections.append(.init(id: section.id, at: index))
        }
        var commonOld: [Int] = []
        var commonNew: [Int] = []
        for (index, section) in new.sections.enumerated() {
            if let previous = oldIndex[section.id] {
                commonOld.append(previous)
                commonNew.append(index)
            } else {
                match.newInserted[index] = true
                delta.insertedSections.append(.init(id: section.id, at: index))
            }
        }
        let kept = Set(LongestIncreasingSubsequence.positions(in: commonOld))
        for position in commonOld.indices {
            let from = commonOld[position]
            let to = commonNew[position]
            let id = new.sections[to].id
            if !kept.contains(position) { delta.movedSections.append(.init(id: id, from: from, to: to)) }
            if old.sections[from].bytes != new.sections[to].bytes { delta.updatedSections.append(.init(id: id, at: to)) }
        }
        return match
    }

    private static func diffRows(old: FeedSnapshot, new: FeedSnapshot, sections match: SectionMatch, into delta: inout FeedDelta) {
        var oldPaths: [String: IndexPath] = [:]
        oldPaths.reserveCapacity(old.rowCount)
        for (sectionIndex, section) in old.sections.enumerated() {
            for (rowIndex, row) in section.rows.enumerated() {
                oldPaths[row.id] = IndexPath(section: sectionIndex, row: rowIndex)
            }
        }
        var newIDs = Set<String>()
        newIDs.reserveCapacity(new.rowCount)

        for (sectionIndex, section) in new.sections.enumerated() {
            let sectionInserted = match.newInserted[sectionIndex]
            // Rows that stay in this same section: (old row index, new row index), in new order.
            var stayingOld: [Int] = []
            var stayingNew: [Int] = []
            for (rowIndex, row) in section.rows.enumerated() {
                newIDs.insert(row.id)
                let newPath = IndexPath(section: sectionIndex, row: rowIndex)
                guard let oldPath = oldPaths[row.id] else {
                    if !sectionInserted { delta.insertedRows.append(.init(id: row.id, at: newPath)) }
                    continue
                }
                let oldSectionDeleted = match.oldDeleted[oldPath.section]
                switch (oldSectionDeleted, sectionInserted) {
                case (true, true):
                    continue
                case (true, false):
                    delta.insertedRows.append(.init(id: row.id, at: newPath))
                    continue
                case (false, true):
                    delta.deletedRows.append(.init(id: row.id, at: oldPath))
                    continue
                case (false, false):
                    if old.sections[oldPath.section].id == section.id {
                        stayingOld.append(oldPath.row)
                        stayingNew.append(rowIndex)
                    } else {
                        delta.movedRows.append(.init(id: row.id, from: oldPath, to: newPath))
                    }
                    let oldRow = old.sections[oldPath.section].rows[oldPath.row]
                    if oldRow.bytes != row.bytes {
                        if oldRow.cell == row.cell {
                            delta.reconfiguredRows.append(.init(id: row.id, at: newPath))
                        } else {
                            delta.reloadedRows.append(.init(id: row.id, at: newPath))
                        }
                    }
                }
            }
            guard !stayingOld.isEmpty else { continue }
            let kept = Set(LongestIncreasingSubsequence.positions(in: stayingOld))
            guard kept.count < stayingOld.count else { continue }
            let oldSectionIndex = oldPaths[section.rows[stayingNew[0]].id]!.section
            for position in stayingOld.indices where !kept.contains(position) {
                delta.movedRows.append(.init(
                    id: section.rows[stayingNew[position]].id,
                    from: IndexPath(section: oldSectionIndex, row: stayingOld[position]),
                    to: IndexPath(section: sectionIndex, row: stayingNew[position])))
            }
        }

        for (sectionIndex, section) in old.sections.enumerated() where !match.oldDeleted[sectionIndex] {
            for (rowIndex, row) in section.rows.enumerated() where !newIDs.contains(row.id) {
                delta.deletedRows.append(.init(id: row.id, at: IndexPath(section: sectionIndex, row: rowIndex)))
            }
        }
        delta.deletedRows.sort { $0.at < $1.at }
        delta.insertedRows.sort { $0.at < $1.at }
        delta.movedRows.sort { $0.to < $1.to }
    }
}
