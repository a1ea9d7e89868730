import RowCastJSON

/// Joins the parts of a snapshot asked for with `"chunked":true` (docs/PROTOCOL.md,
/// "Snapshots in parts") into the one snapshot reply they make up: the first part's members
/// without `part` and `parts`, and every part's sections, a section split between two parts
/// joined back into one.
public struct SnapshotAssembler {
    private var first: JSONObject?
    private var sections: [(object: JSONObject, rows: [JSONValue])] = []
    private var expectedPart = 0

    /// An assembler waiting for part 0.
    public init() {}

    /// Adds the next part (a successful reply). Returns the whole snapshot once the last part
    /// is in, nil before.
    /// - Throws: `invalid_snapshot` for a part out of order, of another feed, `seq` or
    ///   `epoch`, or not shaped as a snapshot part.
    public mutating func add(_ reply: JSONValue) throws(ReplicaError) -> JSONValue? {
        func fail(_ problem: String) -> ReplicaError { ReplicaError(.invalidSnapshot, "snapshot part: \(problem)") }
        guard let object = reply.objectValue else { throw fail("the reply is a \(reply.kindName), not an object") }
        // A reply without parts is a whole snapshot (a daemon that does not chunk).
        guard let part = reply["part"]?.integerValue, let parts = reply["parts"]?.integerValue else {
            guard first == nil else { throw fail("part \(expectedPart) has no \"part\" or \"parts\"") }
            return reply
        }
        guard part == expectedPart, parts > part else {
            throw fail("got part \(part) of \(parts), expected part \(expectedPart)")
        }
        guard let partSections = reply["sections"]?.arrayValue else {
            throw fail("\"sections\" is missing or not an array")
        }
        if let first {
            for key in ["feed", "seq", "epoch"] where first[key] != object[key] {
                throw fail(
                    "part \(part) has \(key) \(object[key]?.compactText ?? "none"), part 0 had \(first[key]?.compactText ?? "none")"
                )
            }
        } else {
            first = object
        }
        for (index, section) in partSections.enumerated() {
            guard var sectionObject = section.objectValue, let rows = section["rows"]?.arrayValue else {
                throw fail("section \(index) of part \(part) is not an object with a \"rows\" array")
            }
            if index == 0, let last = sections.last, last.object["id"] == sectionObject["id"] {
                // The section the previous part stopped in: its rows continue here.
                sections[sections.count - 1].rows.append(contentsOf: rows)
            } else {
                sectionObject["rows"] = nil
                sections.append((sectionObject, rows))
            }
        }
        expectedPart += 1
        guard expectedPart == parts, var whole = first else { return nil }
        whole["part"] = nil
        whole["parts"] = nil
        whole["sections"] = .array(
            sections.map { section in
                var object = section.object
                object.append(key: "rows", value: .array(section.rows))
                return .object(object)
            })
        if let pending = object["pending"] { whole["pending"] = pending }
        return .object(whole)
    }
}
