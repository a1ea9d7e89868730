import RowCastClient
import RowCastJSON

/// Builders for snapshots, sections, rows and deltas of a feed named "cars".
enum Fixture {
    static let epoch = "e1"

    /// A rendered row; `title` stands for the content, `cell` for the reuse identifier.
    static func row(_ id: String, _ title: String = "", cell: String = "ProductCell") -> JSONValue {
        [
            "id": .string(id), "type": "product", "cell": .string(cell), "height": 44,
            "content": ["title": .string(title.isEmpty ? "title \(id)" : title)], "actions": [],
        ]
    }

    /// A section object without rows.
    static func sectionObject(_ id: String, order: JSONValue = nil, header: JSONValue = nil) -> JSONValue {
        ["id": .string(id), "order": order, "type": nil, "header": header, "headerRow": nil]
    }

    /// A snapshot section: the section object followed by `rows`.
    static func section(_ id: String, _ rowIDs: [String], order: JSONValue = nil, header: JSONValue = nil) -> JSONValue
    {
        section(id, rows: rowIDs.map { row($0) }, order: order, header: header)
    }

    /// A snapshot section with explicit rows.
    static func section(_ id: String, rows: [JSONValue], order: JSONValue = nil, header: JSONValue = nil) -> JSONValue {
        guard case .object(var object) = sectionObject(id, order: order, header: header) else { return nil }
        object.append(key: "rows", value: .array(rows))
        return .object(object)
    }

    /// A snapshot reply as the daemon sends it.
    static func snapshotReply(seq: Int, epoch: String? = Fixture.epoch, sections: [JSONValue]) -> JSONValue {
        [
            "ok": true, "op": "snapshot", "feed": "cars", "seq": .number(Double(seq)),
            "epoch": epoch.map(JSONValue.string) ?? .null, "sections": .array(sections), "pending": 0,
        ]
    }

    /// The replica-shaped state `{"feed","seq","epoch","sections"}`.
    static func state(seq: Int, epoch: String? = Fixture.epoch, sections: [JSONValue]) -> JSONValue {
        [
            "feed": "cars", "seq": .number(Double(seq)), "epoch": epoch.map(JSONValue.string) ?? .null,
            "sections": .array(sections),
        ]
    }

    /// A replica loaded from a snapshot; fails the calling test through `try`.
    static func replica(seq: Int, epoch: String? = Fixture.epoch, _ sections: [JSONValue]) throws -> FeedReplica {
        try FeedReplica(snapshot: snapshotReply(seq: seq, epoch: epoch, sections: sections))
    }

    /// `[section,row]`.
    static func path(_ section: Int, _ row: Int) -> JSONValue { [.number(Double(section)), .number(Double(row))] }
}

/// A delta under construction: every list starts empty, as the daemon sends it.
struct DeltaBuilder {
    var seq: Int
    var epoch = Fixture.epoch
    var feed = "cars"
    var sectionsDeleted: [JSONValue] = []
    var sectionsInserted: [JSONValue] = []
    var sectionsMoved: [JSONValue] = []
    var sectionsUpdated: [JSONValue] = []
    var rowsDeleted: [JSONValue] = []
    var rowsInserted: [JSONValue] = []
    var rowsMoved: [JSONValue] = []
    var rowsReconfigured: [JSONValue] = []
    var rowsReloaded: [JSONValue] = []

    init(seq: Int) { self.seq = seq }

    mutating func deleteRow(_ id: String, at: (Int, Int)) {
        rowsDeleted.append(["id": .string(id), "at": Fixture.path(at.0, at.1)])
    }

    mutating func insertRow(_ id: String, at: (Int, Int), row: JSONValue? = nil) {
        rowsInserted.append(["id": .string(id), "at": Fixture.path(at.0, at.1), "row": row ?? Fixture.row(id)])
    }

    mutating func moveRow(_ id: String, from: (Int, Int), to: (Int, Int)) {
        rowsMoved.append(["id": .string(id), "from": Fixture.path(from.0, from.1), "to": Fixture.path(to.0, to.1)])
    }

    mutating func reconfigureRow(_ id: String, at: (Int, Int), row: JSONValue) {
        rowsReconfigured.append(["id": .string(id), "at": Fixture.path(at.0, at.1), "row": row])
    }

    mutating func reloadRow(_ id: String, at: (Int, Int), row: JSONValue) {
        rowsReloaded.append(["id": .string(id), "at": Fixture.path(at.0, at.1), "row": row])
    }

    mutating func deleteSection(_ id: String, at: Int) {
        sectionsDeleted.append(["id": .string(id), "at": .number(Double(at))])
    }

    mutating func insertSection(_ id: String, at: Int, rows: [String], section: JSONValue? = nil) {
        sectionsInserted.append([
            "id": .string(id), "at": .number(Double(at)),
            "section": section ?? Fixture.sectionObject(id),
            "rows": .array(rows.map { Fixture.row($0) }),
        ])
    }

    mutating func moveSection(_ id: String, from: Int, to: Int) {
        sectionsMoved.append(["id": .string(id), "from": .number(Double(from)), "to": .number(Double(to))])
    }

    mutating func updateSection(_ id: String, at: Int, section: JSONValue) {
        sectionsUpdated.append(["id": .string(id), "at": .number(Double(at)), "section": section])
    }

    var json: JSONValue {
        [
            "event": "delta", "feed": .string(feed), "epoch": .string(epoch), "seq": .number(Double(seq)),
            "sections": [
                "deleted": .array(sectionsDeleted), "inserted": .array(sectionsInserted),
                "moved": .array(sectionsMoved), "updated": .array(sectionsUpdated),
            ],
            "rows": [
                "deleted": .array(rowsDeleted), "inserted": .array(rowsInserted), "moved": .array(rowsMoved),
                "reconfigured": .array(rowsReconfigured), "reloaded": .array(rowsReloaded),
            ],
        ]
    }
}
