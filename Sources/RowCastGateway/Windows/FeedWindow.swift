import RowCastClient
import RowCastJSON
import RowCastWire

/// One subscriber's window over a feed (docs/PROTOCOL.md, "Windows"): which rows it holds,
/// where, and the seq of the last message it was sent. The window follows the feed's deltas
/// (``follow(_:replica:layout:)``) and moves on request (``move(to:replica:layout:)``); each
/// answers the message that turns the subscriber's copy into the new window, or nothing when
/// the window is unchanged.
///
/// A window is anchored to its first row: rows inserted or removed above it move it (a
/// `window-position` message, no rows); when its first row leaves, it starts right after the
/// row that was above it; a window at offset 0 stays at the top. It stays full near the end
/// of the feed (its offset is at most `total - limit`).
struct FeedWindow {
    /// The feed.
    let feed: String
    /// How many rows it holds at most.
    private(set) var limit: Int
    /// The flat index of its first row.
    private(set) var offset: Int
    /// The ids of its rows, in order.
    private(set) var rowIDs: [String]
    /// The section id of each of its rows.
    private(set) var rowSections: [String]
    /// Each of its rows as last sent (values shared with the replica, so a reference each).
    private(set) var rows: [JSONValue] = []
    /// The seq and epoch of the last message sent.
    private(set) var seq: Int
    /// The epoch of that message.
    private(set) var epoch: String?

    /// Why a window cannot be placed: the row it starts from is not in the feed.
    struct Unplaced: Error {
        /// The request member (`after` or `around`).
        let field: String
        /// The row id.
        let id: String
    }

    /// The window `request` asks for in `replica`, and its `window` message.
    static func open(
        _ request: WindowRequest, replica: FeedReplica, layout: FlatLayout
    ) throws(Unplaced) -> (FeedWindow, String) {
        let offset = try place(request, replica: replica, layout: layout)
        var window = FeedWindow(
            feed: replica.feed, limit: request.limit, offset: offset, rowIDs: [], rowSections: [], seq: replica.seq,
            epoch: replica.epoch)
        var rows: [JSONValue] = []
        var sections: [JSONValue] = []
        var seen = Set<String>()
        var ids: [String] = []
        var rowSections: [String] = []
        forEachRow(in: window.range(total: layout.total), replica: replica, layout: layout) { _, section, row in
            let sectionID = section.id
            if seen.insert(sectionID).inserted { sections.append(.object(section.attributes)) }
            ids.append(row["id"]?.stringValue ?? "")
            rowSections.append(sectionID)
            rows.append(["section": .string(sectionID), "row": row])
        }
        window.rowIDs = ids
        window.rowSections = rowSections
        window.rows = rows.map { $0["row"] ?? nil }
        let message: JSONValue = [
            "event": "window", "feed": .string(window.feed), "seq": .number(Double(replica.seq)),
            "epoch": replica.epoch.map(JSONValue.string) ?? .null, "offset": .number(Double(window.offset)),
            "limit": .number(Double(window.limit)), "total": .number(Double(layout.total)),
            "sections": .array(sections), "rows": .array(rows),
        ]
        return (window, message.jsonText)
    }

    /// The flat index a window of `request` starts at in `replica`.
    static func place(_ request: WindowRequest, replica: FeedReplica, layout: FlatLayout) throws(Unplaced) -> Int {
        func index(of id: String, field: String) throws(Unplaced) -> Int {
            guard let path = replica.indexPath(ofRow: id), let flat = layout.flat(section: path.section, row: path.row)
            else { throw Unplaced(field: field, id: id) }
            return flat
        }
        let wanted: Int
        switch request.start {
        case .offset(let offset): wanted = offset
        case .after(let id): wanted = try index(of: id, field: "after") + 1
        case .around(let id):
            wanted = SnapshotWindow.offset(
                around: try index(of: id, field: "around"), limit: request.limit, total: layout.total)
        }
        return clamp(wanted, limit: request.limit, total: layout.total)
    }

    /// `offset` kept within the feed: at most `total - limit` (so the window stays full), at
    /// least 0.
    static func clamp(_ offset: Int, limit: Int, total: Int) -> Int {
        max(0, min(offset, total - limit))
    }

    /// The flat range the window covers in a feed of `total` rows.
    func range(total: Int) -> Range<Int> {
        offset..<max(offset, min(offset + limit, total))
    }

    /// The message that takes the window through one delta of the feed (`changes`, applied
    /// to `replica`, whose layout is now `layout`): a `window-update` when its rows change, a
    /// `window-position` when only its offset does, `nil` when it is unchanged.
    mutating func follow(_ changes: WindowChanges, replica: FeedReplica, layout: FlatLayout) -> String? {
        let oldRange = offset..<(offset + rowIDs.count)
        let newOffset = Self.clamp(anchoredOffset(changes), limit: limit, total: changes.newTotal)
        let newRange = newOffset..<max(newOffset, min(newOffset + limit, changes.newTotal))
        let untouched =
            newRange.count == oldRange.count && !changes.removed.intersects(oldRange)
            && !changes.inserted.intersects(newRange)
            && (oldRange.isEmpty || changes.newIndex(ofKept: oldRange.lowerBound) == newOffset)
            && !changes.changed.contains(where: { newRange.contains($0) })
            && (changes.updatedSections.isEmpty || Set(rowSections).isDisjoint(with: changes.updatedSections))
        if untouched {
            guard newOffset != offset else { return nil }
            let base = seq
            offset = newOffset
            (seq, epoch) = (replica.seq, replica.epoch)
            return positionMessage(base: base, total: layout.total)
        }
        return transition(changes, to: newOffset, limit: limit, replica: replica, layout: layout).jsonText
    }

    /// The `window-update` that moves the window to where `request` asks, at the replica's
    /// current seq (the window's rows are those of that seq already).
    mutating func move(to request: WindowRequest, replica: FeedReplica, layout: FlatLayout) throws(Unplaced) -> String {
        let newOffset = try Self.place(request, replica: replica, layout: layout)
        return transition(
            WindowChanges(total: layout.total), to: newOffset, limit: request.limit, replica: replica, layout: layout
        ).jsonText
    }

    /// Where the window starts after `changes`, before clamping.
    private func anchoredOffset(_ changes: WindowChanges) -> Int {
        if offset == 0 { return 0 }
        if offset < changes.oldTotal, !changes.removed.contains(offset) { return changes.newIndex(ofKept: offset) }
        // The first row left (or the window was past the end): start after the kept row above.
        let above = min(offset, changes.oldTotal)
        guard let kept = changes.removed.lastNonMember(below: above) else { return 0 }
        return changes.newIndex(ofKept: kept) + 1
    }

    /// The `window-update` from the window's rows to the rows `newOffset..<newOffset+newLimit`
    /// of `replica` after `changes`; the window becomes those rows.
    private mutating func transition(
        _ changes: WindowChanges, to newOffset: Int, limit newLimit: Int, replica: FeedReplica, layout: FlatLayout
    ) -> JSONValue {
        let oldOffset = offset
        let oldRange = oldOffset..<(oldOffset + rowIDs.count)
        var oldPlaces: [String: Int] = [:]
        oldPlaces.reserveCapacity(rowIDs.count)
        for (index, id) in rowIDs.enumerated() { oldPlaces[id] = index }
        let oldSections = Set(rowSections)
        var newIDs: [String] = []
        var newSections: [String] = []
        var newRows: [JSONValue] = []
        var inserted: [JSONValue] = []
        var moved: [JSONValue] = []
        var reloaded: [JSONValue] = []
        var sections: [JSONValue] = []
        var sentSections = Set<String>()
        offset = newOffset
        limit = newLimit
        Self.forEachRow(in: range(total: layout.total), replica: replica, layout: layout) { flat, section, row in
            let at = flat - newOffset
            let id = row["id"]?.stringValue ?? ""
            let sectionID = section.id
            newIDs.append(id)
            newSections.append(sectionID)
            newRows.append(row)
            if !oldSections.contains(sectionID) || changes.updatedSections.contains(sectionID),
                sentSections.insert(sectionID).inserted
            {
                sections.append(.object(section.attributes))
            }
            // The row's old place in the window: it stayed (kept by the delta, inside the old
            // window), or came from elsewhere in it (moved); else it enters.
            var from: Int?
            var stays = false
            if changes.inserted.contains(flat) {
                from = oldPlaces[id]
            } else if oldRange.contains(changes.oldIndex(ofKept: flat)) {
                from = changes.oldIndex(ofKept: flat) - oldOffset
                stays = true
            }
            if let from {
                if !stays {
                    moved.append([
                        "id": .string(id), "from": .number(Double(from)), "to": .number(Double(at)),
                        "section": .string(sectionID),
                    ])
                }
                // Compared, not taken from the delta: a row that moved into an inserted
                // section carries its new content there, in no `reloaded` entry.
                if rows[from] != row {
                    reloaded.append(["id": .string(id), "at": .number(Double(at)), "row": row])
                }
            } else {
                inserted.append([
                    "id": .string(id), "at": .number(Double(at)), "section": .string(sectionID), "row": row,
                ])
            }
        }
        let kept = Set(newIDs)
        var deleted: [JSONValue] = []
        for (index, id) in rowIDs.enumerated() where !kept.contains(id) {
            deleted.append(["id": .string(id), "at": .number(Double(index))])
        }
        let base = seq
        rowIDs = newIDs
        rowSections = newSections
        rows = newRows
        (seq, epoch) = (replica.seq, replica.epoch)
        return [
            "event": "window-update", "feed": .string(feed), "seq": .number(Double(seq)),
            "epoch": epoch.map(JSONValue.string) ?? .null, "base": .number(Double(base)),
            "offset": .number(Double(offset)), "limit": .number(Double(limit)),
            "total": .number(Double(layout.total)), "sections": .array(sections), "deleted": .array(deleted),
            "inserted": .array(inserted), "moved": .array(moved), "reloaded": .array(reloaded),
        ]
    }

    /// `{"event":"window-position",...}`: the window moved in the feed; its rows did not change.
    private func positionMessage(base: Int, total: Int) -> String {
        let message: JSONValue = [
            "event": "window-position", "feed": .string(feed), "seq": .number(Double(seq)),
            "epoch": epoch.map(JSONValue.string) ?? .null, "base": .number(Double(base)),
            "offset": .number(Double(offset)), "limit": .number(Double(limit)), "total": .number(Double(total)),
        ]
        return message.jsonText
    }

    /// Calls `body` with the flat index, section and row of each row of `range` in `replica`.
    private static func forEachRow(
        in range: Range<Int>, replica: FeedReplica, layout: FlatLayout,
        _ body: (Int, ReplicaSection, JSONValue) -> Void
    ) {
        guard !range.isEmpty else { return }
        var (section, row) = layout.indexPath(of: range.lowerBound)
        for flat in range {
            while row >= replica.sections[section].rows.count {
                section += 1
                row = 0
            }
            body(flat, replica.sections[section], replica.sections[section].rows[row])
            row += 1
        }
    }
}
