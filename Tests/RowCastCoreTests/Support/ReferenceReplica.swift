import RowCastJSON
import Testing

/// An independent implementation of docs/PROTOCOL.md "Applying a delta", used to check that
/// every delta the engine emits turns the previous snapshot into the next one exactly.
struct ReferenceReplica: Equatable {
    struct Section: Equatable {
        var id: String
        var object: JSONValue
        var rows: [JSONValue]
    }

    var seq: Int
    var epoch: String?
    var sections: [Section]

    /// From a snapshot reply.
    init(snapshot: JSONValue) {
        seq = Int(snapshot["seq"]?.numberValue ?? -1)
        epoch = snapshot["epoch"]?.stringValue
        sections = (snapshot["sections"]?.arrayValue ?? []).map { value in
            var object = value.objectValue!
            let rows = object["rows"]?.arrayValue ?? []
            object["rows"] = nil
            return Section(id: value["id"]!.stringValue!, object: .object(object), rows: rows)
        }
    }

    struct Violation: Error, CustomStringConvertible {
        var description: String
    }

    /// Applies a delta, verifying every index and id, or throws.
    mutating func apply(_ delta: JSONValue) throws {
        let deltaSeq = Int(delta["seq"]!.numberValue!)
        guard deltaSeq == seq + 1 else { throw Violation(description: "gap: have \(seq), got \(deltaSeq)") }
        if seq > 0 { guard delta["epoch"]?.stringValue == epoch else { throw Violation(description: "epoch changed") } }
        let sectionDelta = delta["sections"]!
        let rowDelta = delta["rows"]!
        func path(_ value: JSONValue?) -> (Int, Int) {
            let pair = value!.arrayValue!
            return (Int(pair[0].numberValue!), Int(pair[1].numberValue!))
        }
        func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
            if !condition { throw Violation(description: message()) }
        }
        // 1. remove deleted and moved rows by old index path.
        var removals: [(Int, Int, String, Bool)] = []  // section, row, id, isMove
        for entry in rowDelta["deleted"]!.arrayValue! {
            let (s, r) = path(entry["at"])
            removals.append((s, r, entry["id"]!.stringValue!, false))
        }
        for entry in rowDelta["moved"]!.arrayValue! {
            let (s, r) = path(entry["from"])
            removals.append((s, r, entry["id"]!.stringValue!, true))
        }
        var movedRows: [String: JSONValue] = [:]
        for (s, r, id, isMove) in removals.sorted(by: { ($0.0, $0.1) > ($1.0, $1.1) }) {
            try check(s < sections.count && r < sections[s].rows.count, "row path [\(s),\(r)] out of bounds")
            try check(sections[s].rows[r]["id"]?.stringValue == id, "row at [\(s),\(r)] is not \(id)")
            let row = sections[s].rows.remove(at: r)
            if isMove { movedRows[id] = row }
        }
        // 2. remove deleted and moved sections by old index.
        var sectionRemovals: [(Int, String, Bool)] = []
        for entry in sectionDelta["deleted"]!.arrayValue! {
            sectionRemovals.append((Int(entry["at"]!.numberValue!), entry["id"]!.stringValue!, false))
        }
        for entry in sectionDelta["moved"]!.arrayValue! {
            sectionRemovals.append((Int(entry["from"]!.numberValue!), entry["id"]!.stringValue!, true))
        }
        var movedSections: [String: Section] = [:]
        for (index, id, isMove) in sectionRemovals.sorted(by: { $0.0 > $1.0 }) {
            try check(index < sections.count && sections[index].id == id, "section \(id) not at \(index)")
            let section = sections.remove(at: index)
            if isMove { movedSections[id] = section }
        }
        // 3. insert inserted and moved sections at new indexes, ascending.
        var sectionInserts: [(Int, Section)] = []
        for entry in sectionDelta["inserted"]!.arrayValue! {
            sectionInserts.append(
                (
                    Int(entry["at"]!.numberValue!),
                    Section(id: entry["id"]!.stringValue!, object: entry["section"]!, rows: entry["rows"]!.arrayValue!)
                ))
        }
        for entry in sectionDelta["moved"]!.arrayValue! {
            sectionInserts.append((Int(entry["to"]!.numberValue!), movedSections[entry["id"]!.stringValue!]!))
        }
        for (index, section) in sectionInserts.sorted(by: { $0.0 < $1.0 }) {
            try check(index <= sections.count, "section insert at \(index) out of bounds")
            sections.insert(section, at: index)
        }
        // 4. insert inserted and moved rows at new index paths, ascending.
        var rowInserts: [(Int, Int, JSONValue)] = []
        for entry in rowDelta["inserted"]!.arrayValue! {
            let (s, r) = path(entry["at"])
            rowInserts.append((s, r, entry["row"]!))
        }
        for entry in rowDelta["moved"]!.arrayValue! {
            let (s, r) = path(entry["to"])
            rowInserts.append((s, r, movedRows[entry["id"]!.stringValue!]!))
        }
        for (s, r, row) in rowInserts.sorted(by: { ($0.0, $0.1) < ($1.0, $1.1) }) {
            try check(s < sections.count && r <= sections[s].rows.count, "row insert at [\(s),\(r)] out of bounds")
            sections[s].rows.insert(row, at: r)
        }
        // Stage 2: contents by new index path.
        for kind in ["reconfigured", "reloaded"] {
            for entry in rowDelta[kind]!.arrayValue! {
                let (s, r) = path(entry["at"])
                try check(s < sections.count && r < sections[s].rows.count, "\(kind) path out of bounds")
                try check(sections[s].rows[r]["id"]?.stringValue == entry["id"]?.stringValue, "\(kind) id mismatch")
                sections[s].rows[r] = entry["row"]!
            }
        }
        for entry in sectionDelta["updated"]!.arrayValue! {
            let index = Int(entry["at"]!.numberValue!)
            try check(
                index < sections.count && sections[index].id == entry["id"]?.stringValue, "updated section mismatch")
            sections[index].object = entry["section"]!
        }
        seq = deltaSeq
        epoch = delta["epoch"]?.stringValue
    }
}
