/// The full diff between two snapshots of a feed: sections matched by id, rows matched by id
/// across the whole feed, moves found with a longest increasing subsequence so that every row
/// not named keeps its relative order (the rule a UIKit batch update relies on). Used for a
/// `reset` and for batches that touch a large part of a feed; small batches take the
/// incremental path of `Feed.finishBatch`.
///
/// Cost: linear in the rows of both snapshots for the matching (one hash lookup per row), plus
/// O(k log k) for the k rows that stay in their section, to find the fewest moves.
public enum SnapshotDiff {
    /// The delta that turns `old` into `new`. Section ids and row ids must be unique in each.
    public static func delta(from old: FeedSnapshot, to new: FeedSnapshot) -> FeedDelta {
        var delta = FeedDelta()
        var insertedSections: [(id: String, at: Int)] = []
        let match = SectionMatcher(
            old: old.sections.map { .init(id: $0.id, bytes: $0.bytes) },
            new: new.sections.map { .init(id: $0.id, bytes: $0.bytes) },
            into: &delta, inserted: &insertedSections)
        for (id, at) in insertedSections {
            delta.insertedSections.append(.init(id: id, at: at, section: new.sections[at].bytes, rows: new.sections[at].rows.map(\.bytes)))
        }
        diffRows(old: old, new: new, sections: match, into: &delta)
        delta.normalizeOrder()
        return delta
    }

    private static func diffRows(old: FeedSnapshot, new: FeedSnapshot, sections match: SectionMatcher, into delta: inout FeedDelta) {
        var oldPaths: [String: IndexPath] = Dictionary(minimumCapacity: old.rowCount)
        for (sectionIndex, section) in old.sections.enumerated() {
            for (rowIndex, row) in section.rows.enumerated() {
                oldPaths[row.id] = IndexPath(section: sectionIndex, row: rowIndex)
            }
        }
        var seen = Set<String>(minimumCapacity: new.rowCount)

        for (sectionIndex, section) in new.sections.enumerated() {
            let sectionInserted = match.newInserted[sectionIndex]
            // Rows that stay in this same section: (old row index, new row index), in new order.
            var stayingOld: [Int] = []
            var stayingNew: [Int] = []
            for (rowIndex, row) in section.rows.enumerated() {
                seen.insert(row.id)
                let newPath = IndexPath(section: sectionIndex, row: rowIndex)
                guard let oldPath = oldPaths[row.id] else {
                    if !sectionInserted { delta.insertedRows.append(.init(id: row.id, at: newPath, row: row.bytes)) }
                    continue
                }
                switch (match.oldDeleted[oldPath.section], sectionInserted) {
                case (true, true):
                    continue
                case (true, false):
                    delta.insertedRows.append(.init(id: row.id, at: newPath, row: row.bytes))
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
                        let change = FeedDelta.RowContent(id: row.id, at: newPath, row: row.bytes)
                        if oldRow.cell == row.cell { delta.reconfiguredRows.append(change) } else { delta.reloadedRows.append(change) }
                    }
                }
            }
            guard !stayingOld.isEmpty else { continue }
            let kept = Set(LongestIncreasingSubsequence.positions(in: stayingOld))
            guard kept.count < stayingOld.count else { continue }
            let oldSectionIndex = match.oldIndex[section.id]!
            for position in stayingOld.indices where !kept.contains(position) {
                delta.movedRows.append(.init(
                    id: section.rows[stayingNew[position]].id,
                    from: IndexPath(section: oldSectionIndex, row: stayingOld[position]),
                    to: IndexPath(section: sectionIndex, row: stayingNew[position])))
            }
        }

        for (sectionIndex, section) in old.sections.enumerated() where !match.oldDeleted[sectionIndex] {
            for (rowIndex, row) in section.rows.enumerated() where !seen.contains(row.id) {
                delta.deletedRows.append(.init(id: row.id, at: IndexPath(section: sectionIndex, row: rowIndex)))
            }
        }
    }
}
