import RowCastJSON

/// One delta of a feed in the flat row order that windows count in (docs/PROTOCOL.md,
/// "Windows"), worked out once per delta and shared by every window of the feed: which old
/// places lost their row, which new places got a row from elsewhere, and which rows changed
/// their content. A row that neither left nor took a place ("kept") keeps its order relative
/// to the other kept rows, so its new index follows from its old one by counting.
///
/// A moved or deleted section counts as every row of it leaving; a moved or inserted section
/// as every row of it arriving. Built in time that grows with the delta's entries and the
/// number of sections, not with the feed.
struct WindowChanges {
    /// Old flat indexes whose row left its place (deleted, moved, or in a deleted or moved
    /// section).
    let removed: IndexRuns
    /// New flat indexes whose row came from elsewhere (inserted, moved, or in an inserted or
    /// moved section).
    let inserted: IndexRuns
    /// New flat indexes of rows whose content changed (`reconfigured` or `reloaded`).
    let changed: Set<Int>
    /// Ids of sections whose object changed.
    let updatedSections: Set<String>
    /// How many rows the feed had before.
    let oldTotal: Int
    /// How many rows it has now.
    let newTotal: Int

    /// No change at all, in a feed of `total` rows (a window that moves).
    init(total: Int) {
        removed = IndexRuns([])
        inserted = IndexRuns([])
        changed = []
        updatedSections = []
        oldTotal = total
        newTotal = total
    }

    /// The changes of `delta` (a delta event as published) between the layouts before and
    /// after it. Entries whose indexes do not fit the layouts are ignored: the replica checked
    /// the delta when it applied it.
    init(delta: JSONValue, old: FlatLayout, new: FlatLayout) {
        var removed: [Range<Int>] = []
        var inserted: [Range<Int>] = []
        var changed = Set<Int>()
        var updated = Set<String>()
        let sections = delta["sections"]
        for entry in sections?["deleted"]?.arrayValue ?? [] {
            if let at = entry["at"]?.intValue { removed.append(old.rows(ofSection: at)) }
        }
        for entry in sections?["inserted"]?.arrayValue ?? [] {
            if let at = entry["at"]?.intValue { inserted.append(new.rows(ofSection: at)) }
        }
        for entry in sections?["moved"]?.arrayValue ?? [] {
            if let from = entry["from"]?.intValue { removed.append(old.rows(ofSection: from)) }
            if let to = entry["to"]?.intValue { inserted.append(new.rows(ofSection: to)) }
        }
        for entry in sections?["updated"]?.arrayValue ?? [] {
            if let id = entry["id"]?.stringValue { updated.insert(id) }
        }
        let rows = delta["rows"]
        func flat(_ path: JSONValue?, in layout: FlatLayout) -> Int? {
            guard let parts = path?.arrayValue, parts.count == 2, let section = parts[0].intValue,
                let row = parts[1].intValue
            else { return nil }
            return layout.flat(section: section, row: row)
        }
        for entry in rows?["deleted"]?.arrayValue ?? [] {
            if let at = flat(entry["at"], in: old) { removed.append(at..<(at + 1)) }
        }
        for entry in rows?["inserted"]?.arrayValue ?? [] {
            if let at = flat(entry["at"], in: new) { inserted.append(at..<(at + 1)) }
        }
        for entry in rows?["moved"]?.arrayValue ?? [] {
            if let from = flat(entry["from"], in: old) { removed.append(from..<(from + 1)) }
            if let to = flat(entry["to"], in: new) { inserted.append(to..<(to + 1)) }
        }
        for list in ["reconfigured", "reloaded"] {
            for entry in rows?[list]?.arrayValue ?? [] {
                if let at = flat(entry["at"], in: new) { changed.insert(at) }
            }
        }
        self.removed = IndexRuns(removed)
        self.inserted = IndexRuns(inserted)
        self.changed = changed
        updatedSections = updated
        oldTotal = old.total
        newTotal = new.total
    }

    /// The new index of the kept row that was at old index `index`.
    func newIndex(ofKept index: Int) -> Int {
        inserted.nonMember(index - removed.count(below: index))
    }

    /// The old index of the kept row that is at new index `index`.
    func oldIndex(ofKept index: Int) -> Int {
        removed.nonMember(index - inserted.count(below: index))
    }
}

extension JSONValue {
    /// The number as an `Int`, when this value is an integral number that fits.
    var intValue: Int? {
        guard let number = numberValue, number == number.rounded(), abs(number) < 9_007_199_254_740_992 else {
            return nil
        }
        return Int(number)
    }
}
