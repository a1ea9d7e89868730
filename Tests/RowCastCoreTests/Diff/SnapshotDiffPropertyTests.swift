@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastJSON
import RowCastTesting
import Testing

/// Random pairs of sectioned snapshots: the delta must turn the old one into the new one
/// exactly, applied by the independent reference replica of docs/PROTOCOL.md.
struct SnapshotDiffPropertyTests {
    static func randomSnapshot(_ random: inout SplitMix64, idPool: Int, sectionPool: Int) -> FeedSnapshot {
        var sectionIDs = (0..<sectionPool).map { "s\($0)" }.shuffled(using: &random)
        sectionIDs = Array(sectionIDs.prefix(Int.random(in: 0...sectionPool, using: &random)))
        var rowIDs = (0..<idPool).map { "r\($0)" }.shuffled(using: &random)
        rowIDs = Array(rowIDs.prefix(Int.random(in: 0...idPool, using: &random)))
        var sections = sectionIDs.map { id in
            let header = Int.random(in: 0..<2, using: &random)
            let bytes = JSONValue.object([
                "id": .string(id), "order": nil, "type": nil, "header": ["v": .number(Double(header))],
                "headerRow": nil,
            ]).serialized()
            return FeedSnapshot.Section(id: id, bytes: bytes, rows: [])
        }
        guard !sections.isEmpty else { return FeedSnapshot() }
        for id in rowIDs {
            let cell = Int.random(in: 0..<2, using: &random) == 0 ? "A" : "B"
            let content = Int.random(in: 0..<3, using: &random)
            let bytes = JSONValue.object([
                "id": .string(id), "type": "t", "cell": .string(cell), "height": 1,
                "content": ["v": .number(Double(content))],
            ]).serialized()
            let target = Int.random(in: 0..<sections.count, using: &random)
            sections[target].rows.append(FeedSnapshot.Row(id: id, cell: cell, bytes: bytes))
        }
        return FeedSnapshot(sections: sections)
    }

    static func reply(_ snapshot: FeedSnapshot, seq: Int) -> JSONValue {
        var writer = JSONWriter()
        writer.writeRaw("{\"seq\":")
        writer.write(integer: Int64(seq))
        writer.writeRaw(",\"epoch\":\"e\",\"sections\":")
        SnapshotEncoder.writeSections(snapshot, to: &writer)
        writer.writeRaw("}")
        return try! JSONParser.parse(writer.bytes)
    }

    @Test("random snapshot pairs: applying the delta yields the new snapshot", arguments: [1, 2, 3, 4])
    func randomPairs(seedBase: UInt64) throws {
        var random = SplitMix64(state: seedBase * 1_000_003)
        for round in 0..<750 {
            let idPool = [0, 1, 3, 8, 20][round % 5]
            let sectionPool = [1, 2, 4][round % 3]
            let old = Self.randomSnapshot(&random, idPool: idPool, sectionPool: sectionPool)
            let new = Self.randomSnapshot(&random, idPool: idPool, sectionPool: sectionPool)
            let delta = SnapshotDiff.delta(from: old, to: new)
            let body = DeltaEncoder.encode(delta, feed: "f", epoch: "e", seq: 8)
            try BatchUpdateValidator.check(delta, old: old, new: new)
            var replica = ReferenceReplica(snapshot: Self.reply(old, seq: 7))
            try replica.apply(try JSONParser.parse(body))
            #expect(replica == ReferenceReplica(snapshot: Self.reply(new, seq: 8)), "seed \(seedBase) round \(round)")
            #expect(delta.isEmpty == (old == new))
        }
    }

    /// Long lists changed in ranges, as DifferenceKit's benchmark changes them, where the row
    /// walks miss hundreds of rows in a row and look for where the lists line up again: a range
    /// deleted, another inserted, rows shuffled at the front or the back, sections split.
    @Test("long lists changed in ranges: applying the delta yields the new snapshot", arguments: [1, 2, 3, 4, 5, 6])
    func rangeChanges(seed: UInt64) throws {
        var random = SplitMix64(state: seed * 7_919)
        let count = 3_000
        let source = (0..<count).map { "row-\($0)" }
        var target = source
        let deleteStart = Int.random(in: 0..<count / 2, using: &random)
        target.removeSubrange(deleteStart..<(deleteStart + Int.random(in: 300...900, using: &random)))
        target.insert(
            contentsOf: (0..<Int.random(in: 300...900, using: &random)).map { "new-\($0)" },
            at: Int.random(in: 0...target.count, using: &random))
        let shuffled = Int.random(in: 0...600, using: &random)
        if seed % 2 == 0 {
            target[0..<shuffled].shuffle(using: &random)
        } else {
            target[(target.count - shuffled)...].shuffle(using: &random)
        }
        for _ in 0..<Int.random(in: 0...20, using: &random) {  // a few scattered moves too
            let row = target.remove(at: Int.random(in: 0..<target.count, using: &random))
            target.insert(row, at: Int.random(in: 0...target.count, using: &random))
        }
        func snapshot(_ ids: [String], sections: Int) -> FeedSnapshot {
            let size = (ids.count + sections - 1) / sections
            return FeedSnapshot(
                sections: (0..<sections).map { index in
                    let rows = ids[min(index * size, ids.count)..<min((index + 1) * size, ids.count)].map { id in
                        FeedSnapshot.Row(
                            id: id, cell: "A",
                            bytes: JSONValue.object([
                                "id": .string(id), "type": "t", "cell": "A", "height": 1, "content": [:],
                            ]).serialized())
                    }
                    return FeedSnapshot.Section(
                        id: "s\(index)",
                        bytes: JSONValue.object([
                            "id": .string("s\(index)"), "order": nil, "type": nil, "header": [:], "headerRow": nil,
                        ]).serialized(),
                        rows: Array(rows))
                })
        }
        let old = snapshot(source, sections: 1), new = snapshot(target, sections: seed % 3 == 0 ? 2 : 1)
        let delta = SnapshotDiff.delta(from: old, to: new)
        try BatchUpdateValidator.check(delta, old: old, new: new)
        var replica = ReferenceReplica(snapshot: Self.reply(old, seq: 7))
        try replica.apply(try JSONParser.parse(DeltaEncoder.encode(delta, feed: "f", epoch: "e", seq: 8)))
        #expect(replica == ReferenceReplica(snapshot: Self.reply(new, seq: 8)), "seed \(seed)")
    }

    @Test("no entry for a row whose content did not change")
    func unchangedRowsAreNotSent() {
        let row = FeedSnapshot.Row(id: "a", cell: "A", bytes: Array("{\"id\":\"a\"}".utf8))
        let section = FeedSnapshot.Section(id: "s", bytes: Array("{\"id\":\"s\"}".utf8), rows: [row])
        let snapshot = FeedSnapshot(sections: [section])
        #expect(SnapshotDiff.delta(from: snapshot, to: snapshot).isEmpty)
    }

    @Test("moves are minimal: one row moved to the front of ten is one move")
    func minimalMoves() {
        func snapshot(_ ids: [String]) -> FeedSnapshot {
            FeedSnapshot(sections: [
                .init(id: "s", bytes: [], rows: ids.map { .init(id: $0, cell: "A", bytes: Array($0.utf8)) })
            ])
        }
        let ids = (0..<10).map { "r\($0)" }
        let delta = SnapshotDiff.delta(from: snapshot(ids), to: snapshot([ids[9]] + ids.dropLast()))
        #expect(
            delta.movedRows == [.init(id: "r9", from: IndexPath(section: 0, row: 9), to: IndexPath(section: 0, row: 0))]
        )
        #expect(delta.insertedRows.isEmpty && delta.deletedRows.isEmpty)
    }

    @Test("a cell change is a reload, a content change a reconfigure")
    func reloadVersusReconfigure() {
        func snapshot(_ rows: [FeedSnapshot.Row]) -> FeedSnapshot {
            FeedSnapshot(sections: [.init(id: "s", bytes: [], rows: rows)])
        }
        let old = snapshot([.init(id: "a", cell: "A", bytes: [1]), .init(id: "b", cell: "A", bytes: [2])])
        let new = snapshot([.init(id: "a", cell: "A", bytes: [3]), .init(id: "b", cell: "B", bytes: [2, 0])])
        let delta = SnapshotDiff.delta(from: old, to: new)
        #expect(delta.reconfiguredRows == [.init(id: "a", at: IndexPath(section: 0, row: 0), row: [3])])
        #expect(delta.reloadedRows == [.init(id: "b", at: IndexPath(section: 0, row: 1), row: [2, 0])])
    }
}
