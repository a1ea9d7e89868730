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
        // Old rows by id, as a flat index; flat index → (section, row).
        let oldCount = old.rowCount
        var oldFlat: [String: Int] = Dictionary(minimumCapacity: oldCount)
        var oldSectionOf = [Int](repeating: 0, count: oldCount)
        var oldRowOf = [Int](repeating: 0, count: oldCount)
        var flat = 0
        for (sectionIndex, section) in old.sections.enumerated() {
            for (rowIndex, row) in section.rows.enumerated() {
                oldFlat[row.id] = flat
                oldSectionOf[flat] = sectionIndex
                oldRowOf[flat] = rowIndex
                flat += 1
            }
        }
        var matched = [Bool](repeating: false, count: oldCount)

        for sectionIndex in new.sections.indices {
            let sectionInserted = match.newInserted[sectionIndex]
            let sectionID = new.sections[sectionIndex].id
            let oldIndexOfSection = match.oldIndex[sectionID]
            // Rows that stay in this same section: (old row index, new row index), in new order.
            var stayingOld: [Int] = []
            var stayingNew: [Int] = []
            stayingOld.reserveCapacity(new.sections[sectionIndex].rows.count)
            stayingNew.reserveCapacity(new.sections[sectionIndex].rows.count)
            // Fields are read in place (new.sections[s].rows[r].x): binding whole rows would
            // retain and release their byte arrays on every step.
            for rowIndex in new.sections[sectionIndex].rows.indices {
                let newPath = IndexPath(section: sectionIndex, row: rowIndex)
                guard let found = oldFlat[new.sections[sectionIndex].rows[rowIndex].id] else {
                    if !sectionInserted { delta.insertedRows.append(content(new, newPath)) }
                    continue
                }
                matched[found] = true
                let oldPath = IndexPath(section: oldSectionOf[found], row: oldRowOf[found])
                switch (match.oldDeleted[oldPath.section], sectionInserted) {
                case (true, true):
                    continue
                case (true, false):
                    delta.insertedRows.append(content(new, newPath))
                    continue
                case (false, true):
                    delta.deletedRows.append(.init(id: new.sections[sectionIndex].rows[rowIndex].id, at: oldPath))
                    continue
                case (false, false):
                    if oldPath.section == oldIndexOfSection {
                        stayingOld.append(oldPath.row)
                        stayingNew.append(rowIndex)
                    } else {
                        delta.movedRows.append(.init(id: new.sections[sectionIndex].rows[rowIndex].id, from: oldPath, to: newPath))
                    }
                    if old.sections[oldPath.section].rows[oldPath.row].bytes != new.sections[sectionIndex].rows[rowIndex].bytes {
                        if old.sections[oldPath.section].rows[oldPath.row].cell == new.sections[sectionIndex].rows[rowIndex].cell {
                            delta.reconfiguredRows.append(content(new, newPath))
                        } else {
                            delta.reloadedRows.append(content(new, newPath))
                        }
                    }
                }
            }
            guard !stayingOld.isEmpty, let oldSectionIndex = oldIndexOfSection else { continue }
            var kept = [Bool](repeating: false, count: stayingOld.count)
            let longest = LongestIncreasingSubsequence.positions(in: stayingOld)
            guard longest.count < stayingOld.count else { continue }
            for position in longest { kept[position] = true }
            for position in stayingOld.indices where !kept[position] {
                delta.movedRows.append(.init(
                    id: new.sections[sectionIndex].rows[stayingNew[position]].id,
                    from: IndexPath(section: oldSectionIndex, row: stayingOld[position]),
                    to: IndexPath(section: sectionIndex, row: stayingNew[position])))
            }
        }

        for index in 0..<oldCount where !matched[index] && !match.oldDeleted[oldSectionOf[index]] {
            let path = IndexPath(section: oldSectionOf[index], row: oldRowOf[index])
            delta.deletedRows.append(.init(id: old.sections[path.section].rows[path.row].id, at: path))
        }
    }

    /// The row at `path` of `snapshot` as delta content.
    @inline(__always)
    private static func content(_ snapshot: FeedSnapshot, _ path: IndexPath) -> FeedDelta.RowContent {
        FeedDelta.RowContent(id: snapshot.sections[path.section].rows[path.row].id, at: path, row: snapshot.sections[path.section].rows[path.row].bytes)
    }
}
