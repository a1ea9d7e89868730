@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore

/// The rules UIKit enforces on a batch update (`performBatchUpdates`), checked against the old
/// and new snapshots: a delta that passes cannot crash a table view.
enum BatchUpdateValidator {
    struct Violation: Error, CustomStringConvertible {
        var description: String
    }

    static func check(_ delta: FeedDelta, old: FeedSnapshot, new: FeedSnapshot) throws {
        func fail(_ message: String) throws { throw Violation(description: message) }
        // Sections: each old index at most once among deletes and move sources; each new index
        // at most once among inserts and move targets; counts add up.
        let deletedSections = Set(delta.deletedSections.map(\.at))
        let movedFrom = delta.movedSections.map(\.from)
        let insertedSections = Set(delta.insertedSections.map(\.at))
        let movedTo = delta.movedSections.map(\.to)
        if deletedSections.count != delta.deletedSections.count || Set(movedFrom).count != movedFrom.count
            || !deletedSections.isDisjoint(with: movedFrom)
        {
            try fail("an old section index is named twice")
        }
        if insertedSections.count != delta.insertedSections.count || Set(movedTo).count != movedTo.count
            || !insertedSections.isDisjoint(with: movedTo)
        {
            try fail("a new section index is named twice")
        }
        if (deletedSections.union(movedFrom)).contains(where: { $0 < 0 || $0 >= old.sections.count }) {
            try fail("old section index out of bounds")
        }
        if (insertedSections.union(movedTo)).contains(where: { $0 < 0 || $0 >= new.sections.count }) {
            try fail("new section index out of bounds")
        }
        if old.sections.count - deletedSections.count + insertedSections.count != new.sections.count {
            try fail("section counts do not add up")
        }

        // Rows: no row path in a deleted section (deletes, move sources) or an inserted one
        // (inserts, move targets); each old path and new path named at most once; per-section
        // counts add up: new = old - deleted - moved out + inserted + moved in.
        var oldNamed = Set<IndexPath>()
        var newNamed = Set<IndexPath>()
        var outCount = [Int](repeating: 0, count: old.sections.count)
        var inCount = [Int](repeating: 0, count: new.sections.count)
        for path in delta.deletedRows.map(\.at) + delta.movedRows.map(\.from) {
            guard path.section < old.sections.count, path.row < old.sections[path.section].rows.count else {
                try fail("old row path \(path) out of bounds"); return
            }
            if deletedSections.contains(path.section) { try fail("row \(path) named in a deleted section") }
            if !oldNamed.insert(path).inserted { try fail("old row path \(path) named twice") }
            outCount[path.section] += 1
        }
        for path in delta.insertedRows.map(\.at) + delta.movedRows.map(\.to) {
            guard path.section < new.sections.count, path.row < new.sections[path.section].rows.count else {
                try fail("new row path \(path) out of bounds"); return
            }
            if insertedSections.contains(path.section) { try fail("row \(path) named in an inserted section") }
            if !newNamed.insert(path).inserted { try fail("new row path \(path) named twice") }
            inCount[path.section] += 1
        }
        var oldIndexOfSection: [String: Int] = [:]
        for (index, section) in old.sections.enumerated() { oldIndexOfSection[section.id] = index }
        for (index, section) in new.sections.enumerated() where !insertedSections.contains(index) {
            let oldIndex = oldIndexOfSection[section.id]!
            let expected = old.sections[oldIndex].rows.count - outCount[oldIndex] + inCount[index]
            if expected != section.rows.count {
                try fail("row counts of section \(section.id) do not add up: \(expected) vs \(section.rows.count)")
            }
        }
        // Stage 2 (contents) names new paths of surviving sections, each once.
        let changed = delta.reconfiguredRows.map(\.at) + delta.reloadedRows.map(\.at)
        if Set(changed).count != changed.count { try fail("a row is both reconfigured and reloaded, or named twice") }
        for path in changed where insertedSections.contains(path.section) {
            try fail("content change \(path) in an inserted section")
        }
    }
}
