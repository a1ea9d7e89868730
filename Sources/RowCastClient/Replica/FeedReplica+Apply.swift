import RowCastJSON

extension FeedReplica {
    /// Applies one delta event of this feed (PROTOCOL.md, "Sequence and epoch" and
    /// "Applying a delta"), or checks a `position` event (``check(position:)``).
    ///
    /// - Returns: ``DeltaOutcome/applied``, or ``DeltaOutcome/alreadyIncluded`` when the
    ///   delta's `seq` is not newer than the replica's (nothing changes).
    /// - Throws: a ``ReplicaError`` when the delta is for another feed or epoch, leaves a gap,
    ///   is malformed, or does not fit the replica (an index out of bounds, an id that is not
    ///   the one at that index, a duplicate id afterwards). The replica is then unchanged and
    ///   must be reloaded from a snapshot.
    @discardableResult
    public mutating func apply(delta json: JSONValue) throws(ReplicaError) -> DeltaOutcome {
        // Position events share the feed's topic: they change nothing, but show a miss.
        if json["event"]?.stringValue == "position" { return try check(position: json) }
        guard let deltaFeed = json["feed"]?.stringValue, let deltaSeq = json["seq"]?.integerValue,
            let deltaEpoch = json["epoch"]?.stringValue
        else {
            return try apply(FeedDelta(json: json))  // throws the precise reason
        }
        guard try accepts(feed: deltaFeed, epoch: deltaEpoch, seq: deltaSeq) else { return .alreadyIncluded }
        return try apply(FeedDelta(json: json))
    }

    /// Applies one parsed delta; see ``apply(delta:)``.
    @discardableResult
    public mutating func apply(_ delta: FeedDelta) throws(ReplicaError) -> DeltaOutcome {
        guard try accepts(feed: delta.feed, epoch: delta.epoch, seq: delta.seq) else { return .alreadyIncluded }
        let context = "feed \(feed), delta seq \(delta.seq)"
        if delta.changesContentsOnly {
            // Nothing moves: check every entry, then replace in place, in time that grows with
            // the entries and not the feed (when this replica's storage is not shared).
            let contents = ContentChanges(delta: delta, context: context)
            try contents.check(sections)
            contents.apply(to: &sections)
        } else if InPlaceRowChanges.applies(to: delta) {
            // A few rows come and go, no section: in place too, undone if stage 2 fails.
            let rows = try InPlaceRowChanges(delta: delta, replica: self, context: context)
            rows.apply(to: &sections)
            let contents = ContentChanges(delta: delta, context: context)
            do {
                try contents.check(sections)
            } catch {
                rows.undo(on: &sections)
                throw error
            }
            contents.apply(to: &sections)
            if !rows.removedRowIDs.isEmpty { rowIDs.subtract(rows.removedRowIDs) }
            if !rows.addedRowIDs.isEmpty { rowIDs.formUnion(rows.addedRowIDs) }
        } else {
            // The application holds a copy of this replica until it returns: the row ids are
            // updated after, when this replica holds its set alone (no copy of a million ids).
            let (newSections, removed, added) = try Self.structure(of: self, after: delta)
            sections = newSections
            if !removed.isEmpty { rowIDs.subtract(removed) }
            if !added.isEmpty { rowIDs.formUnion(added) }
        }
        seq = delta.seq
        epoch = delta.epoch
        return .applied
    }

    /// The sections of `replica` after `delta`, and the row ids that left their place and
    /// that took one.
    private static func structure(
        of replica: FeedReplica, after delta: FeedDelta
    )
        throws(ReplicaError) -> ([ReplicaSection], removed: Set<String>, added: Set<String>)
    {
        var application = DeltaApplication(replica: replica, delta: delta)
        try application.run()
        return (application.sections, application.removedRowIDs, application.addedRowIDs)
    }

    /// Whether a delta with this feed, epoch and seq is the next one (`true`), already
    /// included (`false`), or shows that the replica missed something (throws).
    func accepts(feed deltaFeed: String, epoch deltaEpoch: String, seq deltaSeq: Int) throws(ReplicaError) -> Bool {
        guard deltaFeed == feed else {
            throw ReplicaError(.feedMismatch, "a delta of feed \(deltaFeed) reached the replica of feed \(feed)")
        }
        if epoch == nil, seq == 0 {
            // The feed did not exist at the snapshot: seq 1 of any epoch starts it.
            if deltaSeq == 1 { return true }
            if deltaSeq <= 0 { return false }
            throw ReplicaError(
                .gap,
                "feed \(feed): the replica starts at seq 0 but the next delta has seq \(deltaSeq); \(deltaSeq - 1) delta(s) were missed"
            )
        }
        guard deltaEpoch == epoch else {
            throw ReplicaError(
                .epochChanged,
                "feed \(feed): the replica follows epoch \(epoch ?? "null") at seq \(seq), but delta seq \(deltaSeq) has epoch \(deltaEpoch)"
            )
        }
        if deltaSeq <= seq { return false }
        guard deltaSeq == seq + 1 else {
            throw ReplicaError(
                .gap,
                "feed \(feed): the replica is at seq \(seq) but the next delta has seq \(deltaSeq); \(deltaSeq - seq - 1) delta(s) were missed"
            )
        }
        return true
    }
}

/// The two-stage application of one delta to a copy of a replica's sections.
///
/// Works on its own copy, so a violation found half-way leaves the replica untouched.
private struct DeltaApplication {
    /// The replica before the delta (read only).
    let replica: FeedReplica
    /// The delta being applied.
    let delta: FeedDelta
    /// The section list being transformed into the new one.
    var sections: [ReplicaSection]
    /// The rows taken out and put in, checked against the old snapshot.
    private var identity: RowIdentityCheck
    /// Row ids that left the feed or their place (deleted, moved, or in a deleted section).
    var removedRowIDs: Set<String> { identity.removedRowIDs }
    /// Row ids that took a place (inserted, moved, or in an inserted section).
    var addedRowIDs: Set<String> { identity.addedRowIDs }

    init(replica: FeedReplica, delta: FeedDelta) {
        self.replica = replica
        self.delta = delta
        sections = replica.sections
        identity = RowIdentityCheck(replica, context: "feed \(replica.feed), delta seq \(delta.seq)")
    }

    private var context: String { "feed \(replica.feed), delta seq \(delta.seq)" }

    private func fail(_ kind: ReplicaError.Kind, _ problem: String) -> ReplicaError {
        ReplicaError(kind, "\(context): \(problem)")
    }

    mutating func run() throws(ReplicaError) {
        let movedRows = try removeRows()
        let movedSections = try removeSections()
        try insertSections(movedSections)
        try insertRows(movedRows)
        try replaceContents()
        try checkSectionIDs()
    }

    // MARK: Stage 1

    /// Step 1: removes the rows of row `deleted` and row `moved` by old index path; returns
    /// the moved rows by id.
    private mutating func removeRows() throws(ReplicaError) -> [String: JSONValue] {
        var moved: [String: JSONValue] = [:]
        for entry in delta.deletedRows { _ = try identity.take(entry.id, at: entry.at, list: "deleted") }
        for entry in delta.movedRows { moved[entry.id] = try identity.take(entry.id, at: entry.from, list: "moved") }
        for (sectionIndex, rowIndexes) in identity.taken {
            // The runs between the removed rows, copied whole.
            let rows = sections[sectionIndex].rows
            var kept: [JSONValue] = []
            kept.reserveCapacity(rows.count - rowIndexes.count)
            var start = 0
            for index in rowIndexes.sorted() {
                kept.append(contentsOf: rows[start..<index])
                start = index + 1
            }
            kept.append(contentsOf: rows[start...])
            sections[sectionIndex].rows = kept
        }
        return moved
    }

    /// Step 2: removes the sections of section `deleted` and section `moved` by old index;
    /// returns the moved ones (with their remaining rows) by id.
    private mutating func removeSections() throws(ReplicaError) -> [String: ReplicaSection] {
        var removals = Set<Int>()
        var moved: [String: ReplicaSection] = [:]
        func take(_ id: String, _ index: Int, _ list: String) throws(ReplicaError) -> ReplicaSection {
            guard index < sections.count else {
                throw fail(
                    .indexOutOfBounds,
                    "sections.\(list) names section \"\(id)\" at \(index), but the old snapshot has \(sections.count) section(s)"
                )
            }
            guard sections[index].id == id else {
                throw fail(
                    .idMismatch,
                    "sections.\(list) names section \"\(id)\" at \(index), but the section there is \"\(sections[index].id)\""
                )
            }
            guard removals.insert(index).inserted else {
                throw fail(.invalidDelta, "section \"\(id)\" at \(index) is deleted or moved twice")
            }
            return sections[index]
        }
        for entry in delta.deletedSections {
            let section = try take(entry.id, entry.at, "deleted")
            for row in section.rows { if let id = row.rowID { identity.removeWithSection(id) } }
        }
        for entry in delta.movedSections { moved[entry.id] = try take(entry.id, entry.from, "moved") }
        if !removals.isEmpty {
            sections = sections.enumerated().filter { !removals.contains($0.offset) }.map(\.element)
        }
        return moved
    }

    /// Step 3: inserts the sections of section `inserted` and the moved sections at their new
    /// indexes, in ascending order.
    private mutating func insertSections(_ moved: [String: ReplicaSection]) throws(ReplicaError) {
        var placements: [(at: Int, section: ReplicaSection, list: String)] = []
        for entry in delta.insertedSections {
            guard entry.section["id"]?.stringValue == entry.id else {
                throw fail(
                    .idMismatch,
                    "sections.inserted entry \"\(entry.id)\" carries a section whose id is \"\(entry.section["id"]?.stringValue ?? "?")\""
                )
            }
            for row in entry.rows {
                try identity.add(row.rowID ?? "", "the rows of inserted section \"\(entry.id)\"")
            }
            placements.append((entry.at, ReplicaSection(attributes: entry.section, rows: entry.rows), "inserted"))
        }
        for entry in delta.movedSections {
            guard let section = moved[entry.id] else { continue }
            placements.append((entry.to, section, "moved"))
        }
        placements.sort { $0.at < $1.at }
        var previous = -1
        for placement in placements {
            guard placement.at != previous else {
                throw fail(.invalidDelta, "two sections are placed at new index \(placement.at)")
            }
            guard placement.at <= sections.count else {
                throw fail(
                    .indexOutOfBounds,
                    "sections.\(placement.list) places section \"\(placement.section.id)\" at \(placement.at), past the end of the new list of \(sections.count) section(s)"
                )
            }
            sections.insert(placement.section, at: placement.at)
            previous = placement.at
        }
    }

    /// Step 4: inserts the rows of row `inserted` and the moved rows at their new index paths,
    /// in ascending order of (section, row).
    private mutating func insertRows(_ moved: [String: JSONValue]) throws(ReplicaError) {
        var bySection: [Int: [(row: Int, value: JSONValue, id: String, list: String)]] = [:]
        for entry in delta.insertedRows {
            guard entry.row.rowID == entry.id else {
                throw fail(
                    .idMismatch,
                    "rows.inserted entry \"\(entry.id)\" carries a row whose id is \"\(entry.row.rowID ?? "?")\"")
            }
            try identity.add(entry.id, "rows.inserted")
            bySection[entry.at.section, default: []].append((entry.at.row, entry.row, entry.id, "inserted"))
        }
        for entry in delta.movedRows {
            guard let value = moved[entry.id] else { continue }
            try identity.add(entry.id, "rows.moved")
            bySection[entry.to.section, default: []].append((entry.to.row, value, entry.id, "moved"))
        }
        for (sectionIndex, placements) in bySection {
            guard sectionIndex < sections.count else {
                let first = placements[0]
                throw fail(
                    .indexOutOfBounds,
                    "rows.\(first.list) places row \"\(first.id)\" in section \(sectionIndex), but the new snapshot has \(sections.count) section(s)"
                )
            }
            let sorted = placements.sorted { $0.row < $1.row }
            let old = sections[sectionIndex].rows
            var merged: [JSONValue] = []
            merged.reserveCapacity(old.count + sorted.count)
            var oldIndex = 0
            for placement in sorted {
                guard placement.row >= merged.count else {
                    throw fail(
                        .invalidDelta, "two rows are placed at new index path [\(sectionIndex),\(placement.row)]")
                }
                let needed = placement.row - merged.count
                guard needed <= old.count - oldIndex else {
                    throw fail(
                        .indexOutOfBounds,
                        "rows.\(placement.list) places row \"\(placement.id)\" at [\(sectionIndex),\(placement.row)], past the end of section \"\(sections[sectionIndex].id)\""
                    )
                }
                merged.append(contentsOf: old[oldIndex..<(oldIndex + needed)])
                oldIndex += needed
                merged.append(placement.value)
            }
            merged.append(contentsOf: old[oldIndex...])
            sections[sectionIndex].rows = merged
        }
    }

    // MARK: Stage 2

    /// Replaces the rows of `reconfigured` and `reloaded` and the attributes of section
    /// `updated`, by new index.
    private mutating func replaceContents() throws(ReplicaError) {
        let contents = ContentChanges(delta: delta, context: context)
        try contents.check(sections)
        contents.apply(to: &sections)
    }

    // MARK: Identity checks

    /// Fails when two sections of the new list share an id.
    private func checkSectionIDs() throws(ReplicaError) {
        var seen = Set<String>()
        for section in sections where !seen.insert(section.id).inserted {
            throw fail(.duplicateID, "the new snapshot would hold section \"\(section.id)\" twice")
        }
    }
}

/// Stage 2 of a delta: the rows of `reconfigured` and `reloaded` and the sections of section
/// `updated`, replaced by new index (also used by ``InPlaceRowChanges``' path). ``check(_:)``
/// reads only; ``apply(to:)`` then writes only the entries, so a delta that changes nothing
/// else is applied in place.
struct ContentChanges {
    /// The delta whose stage 2 this is.
    let delta: FeedDelta
    /// "feed F, delta seq N", for messages.
    let context: String

    private func fail(_ kind: ReplicaError.Kind, _ problem: String) -> ReplicaError {
        ReplicaError(kind, "\(context): \(problem)")
    }

    /// Fails when an entry is outside `sections` (the new snapshot after stage 1) or names
    /// another id than the one at its index.
    func check(_ sections: [ReplicaSection]) throws(ReplicaError) {
        for (list, entries) in [("reconfigured", delta.reconfiguredRows), ("reloaded", delta.reloadedRows)] {
            for entry in entries {
                let path = entry.at
                guard path.section < sections.count, path.row < sections[path.section].rows.count else {
                    throw fail(
                        .indexOutOfBounds, "rows.\(list) names row \"\(entry.id)\" at \(path), outside the new snapshot"
                    )
                }
                let current = sections[path.section].rows[path.row].rowID
                guard current == entry.id else {
                    throw fail(
                        .idMismatch,
                        "rows.\(list) names row \"\(entry.id)\" at \(path), but the row there is \"\(current ?? "?")\"")
                }
                guard entry.row.rowID == entry.id else {
                    throw fail(
                        .idMismatch,
                        "rows.\(list) entry \"\(entry.id)\" carries a row whose id is \"\(entry.row.rowID ?? "?")\"")
                }
            }
        }
        for entry in delta.updatedSections {
            guard entry.at < sections.count else {
                throw fail(
                    .indexOutOfBounds,
                    "sections.updated names section \"\(entry.id)\" at \(entry.at), but the new snapshot has \(sections.count) section(s)"
                )
            }
            guard sections[entry.at].id == entry.id, entry.section["id"]?.stringValue == entry.id else {
                throw fail(
                    .idMismatch,
                    "sections.updated names section \"\(entry.id)\" at \(entry.at), but the section there is \"\(sections[entry.at].id)\""
                )
            }
        }
    }

    /// Replaces the entries in `sections`; call ``check(_:)`` first.
    func apply(to sections: inout [ReplicaSection]) {
        for entry in delta.reconfiguredRows + delta.reloadedRows {
            sections[entry.at.section].rows[entry.at.row] = entry.row
        }
        for entry in delta.updatedSections {
            sections[entry.at].attributes = entry.section.removing("rows")
        }
    }
}
