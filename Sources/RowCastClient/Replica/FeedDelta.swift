import RowCastJSON
import RowCastWire

/// A delta as published on `rows.<feed>\0`, read into typed lists (PROTOCOL.md, "Deltas"):
/// the shared wire model (RowCastWire's `FeedDelta`, the type rowcastd encodes from) holding
/// parsed sections and rows.
///
/// Section indexes in `deleted` and `moved.from` are positions in the old section list,
/// those in `inserted`, `moved.to` and `updated` in the new one; row index paths likewise.
public typealias FeedDelta = RowCastWire.FeedDelta<ParsedPayload>

/// The place of a row in a feed (RowCastWire's `RowIndexPath`), for clients that import
/// RowCastClient alone.
public typealias RowIndexPath = RowCastWire.RowIndexPath

extension RowCastWire.FeedDelta where Payload == ParsedPayload {
    /// Reads a delta event; throws ``ReplicaError/Kind/invalidDelta`` naming the bad member.
    ///
    /// A list that is absent counts as empty; a list of the wrong shape is an error.
    public init(json: JSONValue) throws(ReplicaError) {
        self.init()
        let reader = DeltaReader(json: json)
        guard json.objectValue != nil else { throw reader.fail("", "is a \(json.kindName), not an object") }
        feed = try reader.string(json["feed"], "feed")
        epoch = try reader.string(json["epoch"], "epoch")
        seq = try reader.index(json["seq"], "seq")
        let sections = try reader.lists(json["sections"], "sections")
        let rows = try reader.lists(json["rows"], "rows")
        deletedSections = try reader.entries(sections, "sections", "deleted") { entry, path throws(ReplicaError) in
            SectionDeletion(
                id: try reader.string(entry["id"], path + ".id"), at: try reader.index(entry["at"], path + ".at"))
        }
        insertedSections = try reader.entries(sections, "sections", "inserted") { entry, path throws(ReplicaError) in
            SectionInsertion(
                id: try reader.string(entry["id"], path + ".id"),
                at: try reader.index(entry["at"], path + ".at"),
                section: try reader.section(entry["section"], path + ".section"),
                rows: try reader.rows(entry["rows"], path + ".rows"))
        }
        movedSections = try reader.entries(sections, "sections", "moved") { entry, path throws(ReplicaError) in
            SectionMove(
                id: try reader.string(entry["id"], path + ".id"),
                from: try reader.index(entry["from"], path + ".from"),
                to: try reader.index(entry["to"], path + ".to"))
        }
        updatedSections = try reader.entries(sections, "sections", "updated") { entry, path throws(ReplicaError) in
            SectionUpdate(
                id: try reader.string(entry["id"], path + ".id"),
                at: try reader.index(entry["at"], path + ".at"),
                section: try reader.section(entry["section"], path + ".section"))
        }
        deletedRows = try reader.entries(rows, "rows", "deleted") { entry, path throws(ReplicaError) in
            RowDeletion(
                id: try reader.string(entry["id"], path + ".id"), at: try reader.indexPath(entry["at"], path + ".at"))
        }
        insertedRows = try reader.placements(rows, "inserted")
        movedRows = try reader.entries(rows, "rows", "moved") { entry, path throws(ReplicaError) in
            RowMove(
                id: try reader.string(entry["id"], path + ".id"),
                from: try reader.indexPath(entry["from"], path + ".from"),
                to: try reader.indexPath(entry["to"], path + ".to"))
        }
        reconfiguredRows = try reader.placements(rows, "reconfigured")
        reloadedRows = try reader.placements(rows, "reloaded")
    }
}

/// Reads the members of a delta, failing with the member's path.
private struct DeltaReader {
    /// The whole delta, for the `seq` in error messages.
    let json: JSONValue

    func fail(_ path: String, _ problem: String) -> ReplicaError {
        let seq = json["seq"]?.compactText ?? "?"
        let subject = path.isEmpty ? "the delta" : "\"\(path)\""
        return ReplicaError(.invalidDelta, "delta seq \(seq): \(subject) \(problem)")
    }

    func string(_ value: JSONValue?, _ path: String) throws(ReplicaError) -> String {
        guard let value else { throw fail(path, "is missing") }
        guard let string = value.stringValue else { throw fail(path, "is a \(value.kindName), not a string") }
        return string
    }

    func index(_ value: JSONValue?, _ path: String) throws(ReplicaError) -> Int {
        guard let value else { throw fail(path, "is missing") }
        guard let number = value.integerValue, number >= 0 else {
            throw fail(path, "is \(value.compactText), not a non-negative integer")
        }
        return number
    }

    func indexPath(_ value: JSONValue?, _ path: String) throws(ReplicaError) -> RowIndexPath {
        guard let value else { throw fail(path, "is missing") }
        guard let pair = value.arrayValue, pair.count == 2,
            let section = pair[0].integerValue, let row = pair[1].integerValue, section >= 0, row >= 0
        else {
            throw fail(path, "is \(value.compactText), not a [section,row] index path")
        }
        return RowIndexPath(section: section, row: row)
    }

    func section(_ value: JSONValue?, _ path: String) throws(ReplicaError) -> JSONObject {
        guard let value else { throw fail(path, "is missing") }
        guard let object = value.objectValue else { throw fail(path, "is a \(value.kindName), not an object") }
        _ = try string(object["id"], path + ".id")
        return object.removing("rows")
    }

    func row(_ value: JSONValue?, _ path: String) throws(ReplicaError) -> JSONValue {
        guard let value else { throw fail(path, "is missing") }
        guard value.objectValue != nil else { throw fail(path, "is a \(value.kindName), not an object") }
        _ = try string(value["id"], path + ".id")
        return value
    }

    func rows(_ value: JSONValue?, _ path: String) throws(ReplicaError) -> [JSONValue] {
        guard let value else { throw fail(path, "is missing") }
        guard let array = value.arrayValue else { throw fail(path, "is a \(value.kindName), not an array") }
        var rows: [JSONValue] = []
        rows.reserveCapacity(array.count)
        for (offset, element) in array.enumerated() {
            rows.append(try row(element, "\(path)[\(offset)]"))
        }
        return rows
    }

    func lists(_ value: JSONValue?, _ path: String) throws(ReplicaError) -> JSONObject {
        guard let value else { return JSONObject() }
        guard let object = value.objectValue else { throw fail(path, "is a \(value.kindName), not an object") }
        return object
    }

    func entries<Entry>(
        _ lists: JSONObject, _ group: String, _ name: String,
        _ read: (JSONObject, String) throws(ReplicaError) -> Entry
    ) throws(ReplicaError) -> [Entry] {
        guard let value = lists[name] else { return [] }
        let path = "\(group).\(name)"
        guard let array = value.arrayValue else { throw fail(path, "is a \(value.kindName), not an array") }
        var result: [Entry] = []
        result.reserveCapacity(array.count)
        for (offset, element) in array.enumerated() {
            let entryPath = "\(path)[\(offset)]"
            guard let object = element.objectValue else {
                throw fail(entryPath, "is a \(element.kindName), not an object")
            }
            result.append(try read(object, entryPath))
        }
        return result
    }

    func placements(_ lists: JSONObject, _ name: String) throws(ReplicaError) -> [FeedDelta.RowContent] {
        try entries(lists, "rows", name) { entry, path throws(ReplicaError) in
            FeedDelta.RowContent(
                id: try string(entry["id"], path + ".id"),
                at: try indexPath(entry["at"], path + ".at"),
                row: try row(entry["row"], path + ".row"))
        }
    }
}
