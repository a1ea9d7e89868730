/// The full diff between two snapshots of a feed: sections matched by id, rows matched by id
/// across the whole feed, moves found with a longest increasing subsequence so that every row
/// not named keeps its relative order (the rule a UIKit batch update relies on). Used for a
/// `reset` and for batches that touch a large part of a feed; small batches take the
/// incremental path of `Feed.finishBatch`.
///
/// Cost: linear in the rows of both snapshots for the matching (rows that keep their order
/// in a kept section are met by walking both lists; one hash lookup for each other row), plus
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
            delta.insertedSections.append(
                .init(id: id, at: at, section: new.sections[at].bytes, rows: new.sections[at].rows.map(\.bytes)))
        }
        diffRows(old: old, new: new, sections: match, into: &delta)
        delta.normalizeOrder()
        return delta
    }

    private static func diffRows(
        old: FeedSnapshot, new: FeedSnapshot, sections match: SectionMatcher, into delta: inout FeedDelta
    ) {
        // Flat index of old rows → (section, row), and each old section's first flat index.
        let oldCount = old.rowCount
        var oldSectionOf = [Int](repeating: 0, count: oldCount)
        var oldRowOf = [Int](repeating: 0, count: oldCount)
        var oldStart = [Int](repeating: 0, count: old.sections.count)
        var flat = 0
        for (sectionIndex, section) in old.sections.enumerated() {
            oldStart[sectionIndex] = flat
            for rowIndex in section.rows.indices {
                oldSectionOf[flat] = sectionIndex
                oldRowOf[flat] = rowIndex
                flat += 1
            }
        }
        // Rows found by walking each kept section's old and new rows side by side; only the
        // others are hashed (ids are unique, so a row found either way is the same match).
        var matched = [Bool](repeating: false, count: oldCount)
        var walked = new.sections.indices.map { sectionIndex -> [Int] in
            guard !match.newInserted[sectionIndex], let oldIndex = match.oldIndex[new.sections[sectionIndex].id],
                !match.oldDeleted[oldIndex]
            else { return [] }
            return walkTogether(
                old.sections[oldIndex].rows, new.sections[sectionIndex].rows, base: oldStart[oldIndex],
                matched: &matched)
        }
        var oldFlat: [String: Int] = Dictionary(minimumCapacity: oldCount - matched.lazy.filter { $0 }.count)
        for index in 0..<oldCount where !matched[index] {
            oldFlat[old.sections[oldSectionOf[index]].rows[oldRowOf[index]].id] = index
        }

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
            let walkedRows = walked[sectionIndex]
            walked[sectionIndex] = []
            for rowIndex in new.sections[sectionIndex].rows.indices {
                let newPath = IndexPath(section: sectionIndex, row: rowIndex)
                let byWalk = walkedRows.isEmpty ? -1 : walkedRows[rowIndex]
                guard let found = byWalk >= 0 ? byWalk : oldFlat[new.sections[sectionIndex].rows[rowIndex].id] else {
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
                        delta.movedRows.append(
                            .init(id: new.sections[sectionIndex].rows[rowIndex].id, from: oldPath, to: newPath))
                    }
                    if old.sections[oldPath.section].rows[oldPath.row].bytes
                        != new.sections[sectionIndex].rows[rowIndex].bytes
                    {
                        if old.sections[oldPath.section].rows[oldPath.row].cell
                            == new.sections[sectionIndex].rows[rowIndex].cell
                        {
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
                delta.movedRows.append(
                    .init(
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

    /// How far `walkTogether` looks ahead for the row it expected (a few rows inserted or
    /// deleted in one place are stepped over without hashing).
    static let lookahead = 4
    /// How many rows in a row the walk may miss before it looks for where the lists line up
    /// again (a long range inserted, deleted or shuffled; see `realign`).
    static let missesBeforeStopping = 256

    /// Walks the old and new rows of one kept section side by side, from the front and then
    /// from the back, and returns, for each new row, the flat index (`base` + old row) of the
    /// old row with its id when a walk met it, else -1; marks those old rows `matched`. Rows
    /// the walks miss (moved far, past the lookahead, or past where a walk stopped) are left
    /// for the hash lookup; ids are unique, so a row matched either way is the same match.
    static func walkTogether(
        _ old: [FeedSnapshot.Row], _ new: [FeedSnapshot.Row], base: Int, matched: inout [Bool]
    ) -> [Int] {
        var found = [Int](repeating: -1, count: new.count)
        // The misses and the searches for where the lists line up again compare about as many
        // ids as the two lists hold, at most, before the walks give the rest to hashing.
        var searchBudget = old.count + new.count
        let front = walk(
            old, new, from: (0, 0), to: (old.count, new.count), step: 1, base: base, found: &found, matched: &matched,
            searchBudget: &searchBudget)
        _ = walk(
            old, new, from: (old.count - 1, new.count - 1), to: (front.old - 1, front.new - 1), step: -1, base: base,
            found: &found, matched: &matched,
            searchBudget: &searchBudget)
        return found
    }

    /// Where the lists line up again after a walk missed `missesBeforeStopping` rows in a row:
    /// the nearest place, up to `reach` rows further on in both lists at once, where the old
    /// list holds the new row expected now or the new list holds the old one (a range inserted
    /// or deleted shifts every row after it by its length). Each distance costs two id
    /// comparisons of `budget`; nil when none is found within reach, the lists or the budget.
    private static func realign(
        _ old: [FeedSnapshot.Row], _ new: [FeedSnapshot.Row], at position: (old: Int, new: Int), limit: (Int, Int),
        step: Int,
        reach: Int, budget: inout Int
    ) -> (old: Int, new: Int)? {
        func inside(_ row: Int, _ end: Int) -> Bool { isBefore(row, end, step: step) }
        var distance = 1
        while distance <= reach && budget > 0 {
            let oldAhead = position.old + distance * step, newAhead = position.new + distance * step
            let oldInside = inside(oldAhead, limit.0), newInside = inside(newAhead, limit.1)
            guard oldInside || newInside else { return nil }
            if oldInside, old[oldAhead].id == new[position.new].id { return (oldAhead, position.new) }
            if newInside, new[newAhead].id == old[position.old].id { return (position.old, newAhead) }
            budget -= 2
            distance += 1
        }
        return nil
    }

    /// One walk of `walkTogether`, from `start` towards `limit` (exclusive) in steps of `step`
    /// (1 or -1); returns where it stopped.
    private static func walk(
        _ old: [FeedSnapshot.Row], _ new: [FeedSnapshot.Row], from start: (Int, Int), to limit: (Int, Int), step: Int,
        base: Int, found: inout [Int], matched: inout [Bool], searchBudget: inout Int
    ) -> (old: Int, new: Int) {
        var oldRow = start.0
        var newRow = start.1
        var misses = 0
        // Rows matched since the walk last lined up: a long run of them makes a long search
        // worth it (a range moved whole), a short one does not (rows shuffled in place, which
        // the walk steps through and the hash lookup finds).
        var run = 0
        func inside(_ row: Int, _ end: Int) -> Bool { isBefore(row, end, step: step) }
        while inside(oldRow, limit.0) && inside(newRow, limit.1) {
            if misses > missesBeforeStopping {
                // Out of budget, the walk stops and leaves the rest to the hash lookup.
                guard searchBudget > 0 else { break }
                misses = 0
                if let aligned = realign(
                    old, new, at: (oldRow, newRow), limit: limit, step: step, reach: 4 * max(run, missesBeforeStopping),
                    budget: &searchBudget)
                {
                    (oldRow, newRow) = aligned
                    run = 0
                }
            }
            if old[oldRow].id == new[newRow].id {
                found[newRow] = base + oldRow
                matched[base + oldRow] = true
                oldRow += step
                newRow += step
                misses = 0
                run += 1
                continue
            }
            // The expected row a few places on, in either list: what is in between was
            // deleted, inserted or moved, and is looked up (or found absent) by hash.
            var skipped = false
            for distance in 1...lookahead {
                let oldAhead = oldRow + distance * step
                if inside(oldAhead, limit.0), old[oldAhead].id == new[newRow].id {
                    oldRow = oldAhead
                    skipped = true
                    break
                }
                let newAhead = newRow + distance * step
                if inside(newAhead, limit.1), new[newAhead].id == old[oldRow].id {
                    newRow = newAhead
                    skipped = true
                    break
                }
            }
            if !skipped {
                oldRow += step
                newRow += step
                misses += 1
                // A miss compared the ids ahead too: it counts against the budget, so that
                // lists that never line up (shuffled whole) cost a bounded walk, then hashing.
                searchBudget -= 2 * lookahead + 1
            }
        }
        return (oldRow, newRow)
    }

    /// Whether `row` is before `end` going in steps of `step` (1 or -1): what a walk and its
    /// realignment stay within.
    @inline(__always)
    private static func isBefore(_ row: Int, _ end: Int, step: Int) -> Bool { step > 0 ? row < end : row > end }

    /// The row at `path` of `snapshot` as delta content.
    @inline(__always)
    private static func content(_ snapshot: FeedSnapshot, _ path: IndexPath) -> FeedDelta.RowContent {
        FeedDelta.RowContent(
            id: snapshot.sections[path.section].rows[path.row].id, at: path,
            row: snapshot.sections[path.section].rows[path.row].bytes)
    }
}
