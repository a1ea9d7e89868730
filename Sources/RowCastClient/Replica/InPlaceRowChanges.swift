import RowCastJSON

/// Stage 1 of a delta that inserts, deletes and moves a few rows and no section, applied in
/// place: every entry is checked against the old snapshot first (with the errors of a full
/// application), then the rows are removed and inserted where they are, which moves the
/// touched sections' rows in memory but copies none of them when the replica holds them
/// alone. ``undo(on:)`` puts everything back when stage 2 then fails.
struct InPlaceRowChanges {
    /// One row taken out of, or put into, a section.
    typealias Placement = (row: Int, id: String, value: JSONValue)

    /// The most row insertions, deletions and moves applied this way: each moves a section's
    /// rows in memory once, so past a few of them one copy of the section is cheaper.
    static let limit = 16

    /// The rows removed, by section, at their old indexes in ascending order.
    private var removals: [Int: [Placement]] = [:]
    /// The rows inserted or moved in, by section, at their new indexes in ascending order.
    private var placements: [Int: [Placement]] = [:]
    /// Row ids that left their place (deleted or moved).
    private(set) var removedRowIDs = Set<String>()
    /// Row ids that took a place (inserted or moved).
    private(set) var addedRowIDs = Set<String>()

    /// Whether `delta` is one to apply this way.
    static func applies(to delta: FeedDelta) -> Bool {
        delta.deletedSections.isEmpty && delta.insertedSections.isEmpty && delta.movedSections.isEmpty
            && delta.deletedRows.count + delta.insertedRows.count + delta.movedRows.count <= limit
    }

    /// Checks stage 1 of `delta` against the old snapshot (`replica`); throws what a full
    /// application would. `context` ("feed F, delta seq N") starts every message.
    init(delta: FeedDelta, replica: FeedReplica, context: String) throws(ReplicaError) {
        var identity = RowIdentityCheck(replica, context: context)
        var movedValues: [String: JSONValue] = [:]
        for entry in delta.deletedRows {
            let row = try identity.take(entry.id, at: entry.at, list: "deleted")
            removals[entry.at.section, default: []].append((entry.at.row, entry.id, row))
        }
        for entry in delta.movedRows {
            let row = try identity.take(entry.id, at: entry.from, list: "moved")
            removals[entry.from.section, default: []].append((entry.from.row, entry.id, row))
            movedValues[entry.id] = row
        }
        let sections = replica.sections
        var bySection: [Int: [(placement: Placement, list: String)]] = [:]
        for entry in delta.insertedRows {
            guard entry.row.rowID == entry.id else {
                throw identity.fail(
                    .idMismatch,
                    "rows.inserted entry \"\(entry.id)\" carries a row whose id is \"\(entry.row.rowID ?? "?")\"")
            }
            try identity.add(entry.id, "rows.inserted")
            bySection[entry.at.section, default: []].append(((entry.at.row, entry.id, entry.row), "inserted"))
        }
        for entry in delta.movedRows {
            guard let value = movedValues[entry.id] else { continue }
            try identity.add(entry.id, "rows.moved")
            bySection[entry.to.section, default: []].append(((entry.to.row, entry.id, value), "moved"))
        }
        for (sectionIndex, entries) in bySection {
            guard sectionIndex < sections.count else {
                let first = entries[0]
                throw identity.fail(
                    .indexOutOfBounds,
                    "rows.\(first.list) places row \"\(first.placement.id)\" in section \(sectionIndex), but the new snapshot has \(sections.count) section(s)"
                )
            }
            let sorted = entries.sorted { $0.placement.row < $1.placement.row }
            // The rows left after stage 1's removals; the j-th placement (from 0) can be at
            // most that many rows plus j down the section.
            let remaining = sections[sectionIndex].rows.count - (removals[sectionIndex]?.count ?? 0)
            var previous = -1
            for (offset, entry) in sorted.enumerated() {
                let row = entry.placement.row
                guard row > previous else {
                    throw identity.fail(.invalidDelta, "two rows are placed at new index path [\(sectionIndex),\(row)]")
                }
                guard row <= remaining + offset else {
                    throw identity.fail(
                        .indexOutOfBounds,
                        "rows.\(entry.list) places row \"\(entry.placement.id)\" at [\(sectionIndex),\(row)], past the end of section \"\(sections[sectionIndex].id)\""
                    )
                }
                previous = row
            }
            placements[sectionIndex] = sorted.map(\.placement)
        }
        for sectionIndex in removals.keys { removals[sectionIndex]?.sort { $0.row < $1.row } }
        removedRowIDs = identity.removedRowIDs
        addedRowIDs = identity.addedRowIDs
    }

    /// Removes the rows, then inserts the new and moved ones, in `sections`.
    func apply(to sections: inout [ReplicaSection]) {
        for (sectionIndex, rows) in removals {
            for removal in rows.reversed() { sections[sectionIndex].rows.remove(at: removal.row) }
        }
        for (sectionIndex, rows) in placements {
            for placement in rows { sections[sectionIndex].rows.insert(placement.value, at: placement.row) }
        }
    }

    /// Reverses ``apply(to:)`` on `sections`.
    func undo(on sections: inout [ReplicaSection]) {
        for (sectionIndex, rows) in placements {
            for placement in rows.reversed() { sections[sectionIndex].rows.remove(at: placement.row) }
        }
        for (sectionIndex, rows) in removals {
            for removal in rows { sections[sectionIndex].rows.insert(removal.value, at: removal.row) }
        }
    }
}
