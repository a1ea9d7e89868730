import RowCastJSON

/// A local copy of one feed: the sections and rendered rows of the daemon's snapshot at `seq`.
///
/// A pure value with no sockets. Load it from a `snapshot` reply, then feed it every delta of
/// the feed in order with ``apply(delta:)``; it checks sequence, epoch, indexes and ids, and
/// either applies a delta whole or throws a ``ReplicaError`` and stays as it was.
/// ``snapshotJSON`` is its state in the snapshot reply's shape, for exact comparison.
public struct FeedReplica: Sendable, Equatable {
    /// The feed name.
    public let feed: String
    /// The sequence number of the last change included (`0`: the feed did not exist).
    public internal(set) var seq: Int
    /// The feed's history the replica follows (`nil` until the feed exists).
    public internal(set) var epoch: String?
    /// The sections in order, each with its rows.
    public internal(set) var sections: [ReplicaSection]
    /// Every row id in the replica, to find duplicates without a scan.
    var rowIDs: Set<String>

    /// An empty replica of a feed that does not exist yet (`seq` 0, no epoch).
    public init(feed: String) {
        self.feed = feed
        seq = 0
        epoch = nil
        sections = []
        rowIDs = []
    }

    /// A replica loaded from a `snapshot` reply (or from ``snapshotJSON`` of another replica).
    ///
    /// Throws ``ReplicaError/Kind/invalidSnapshot`` naming the member that is missing or
    /// mistyped, or a row or section id that appears twice.
    public init(snapshot: JSONValue) throws(ReplicaError) {
        func fail(_ problem: String) -> ReplicaError { ReplicaError(.invalidSnapshot, "snapshot: \(problem)") }
        guard snapshot.objectValue != nil else { throw fail("the reply is a \(snapshot.kindName), not an object") }
        guard let feed = snapshot["feed"]?.stringValue else { throw fail("\"feed\" is missing or not a string") }
        guard let seq = snapshot["seq"]?.integerValue, seq >= 0 else {
            throw fail("\"seq\" of feed \(feed) is missing or not a non-negative integer")
        }
        let epoch: String?
        switch snapshot["epoch"] {
        case .string(let value)?: epoch = value
        case .null?: epoch = nil
        default: throw fail("\"epoch\" of feed \(feed) is missing or neither a string nor null")
        }
        guard let sectionValues = (snapshot["sections"] ?? .array([])).arrayValue else {
            throw fail("\"sections\" of feed \(feed) is not an array")
        }
        var sections: [ReplicaSection] = []
        var sectionIDs = Set<String>()
        var rowIDs = Set<String>()
        for (index, value) in sectionValues.enumerated() {
            guard let object = value.objectValue, let id = object["id"]?.stringValue else {
                throw fail("sections[\(index)] of feed \(feed) is not an object with a string \"id\"")
            }
            guard sectionIDs.insert(id).inserted else {
                throw fail("section id \"\(id)\" appears twice in feed \(feed)")
            }
            guard let rows = (object["rows"] ?? .array([])).arrayValue else {
                throw fail("\"rows\" of section \"\(id)\" of feed \(feed) is not an array")
            }
            for (rowIndex, row) in rows.enumerated() {
                guard row.objectValue != nil, let rowID = row.rowID else {
                    throw fail(
                        "row \(rowIndex) of section \"\(id)\" of feed \(feed) is not an object with a string \"id\"")
                }
                guard rowIDs.insert(rowID).inserted else {
                    throw fail("row id \"\(rowID)\" appears twice in feed \(feed)")
                }
            }
            sections.append(ReplicaSection(attributes: object, rows: rows))
        }
        self.feed = feed
        self.seq = seq
        self.epoch = epoch
        self.sections = sections
        self.rowIDs = rowIDs
    }

    /// The state as `{"feed","seq","epoch","sections":[...]}`, sections and rows exactly as in
    /// the daemon's snapshot reply at the same `seq`.
    public var snapshotJSON: JSONValue {
        .object([
            "feed": .string(feed),
            "seq": .number(Double(seq)),
            "epoch": epoch.map(JSONValue.string) ?? .null,
            "sections": .array(sections.map(\.json)),
        ])
    }

    /// How many rows the replica holds.
    public var rowCount: Int { rowIDs.count }

    /// Where the row with `id` is, or `nil` when the replica has no such row.
    public func indexPath(ofRow id: String) -> RowIndexPath? {
        guard rowIDs.contains(id) else { return nil }
        for (sectionIndex, section) in sections.enumerated() {
            if let rowIndex = section.rows.firstIndex(where: { $0.rowID == id }) {
                return RowIndexPath(section: sectionIndex, row: rowIndex)
            }
        }
        return nil
    }

    /// The row with `id`, or `nil` when the replica has no such row.
    public func row(id: String) -> JSONValue? {
        indexPath(ofRow: id).map { sections[$0.section].rows[$0.row] }
    }

    /// Equal when feed, seq, epoch and sections are equal.
    public static func == (lhs: FeedReplica, rhs: FeedReplica) -> Bool {
        lhs.feed == rhs.feed && lhs.seq == rhs.seq && lhs.epoch == rhs.epoch && lhs.sections == rhs.sections
    }
}
