import RowCastClient
import RowCastJSON
import Testing

/// Applying hand-written deltas, one rule of PROTOCOL.md "Applying a delta" at a time.
@Suite struct FeedReplicaApplyTests {
    typealias F = Fixture

    @Test func rowDeletesInsertsAndMovesWithinOneSection() throws {
        var replica = try F.replica(seq: 4, [F.section("s", ["a", "b", "c", "d", "e"])])
        var delta = DeltaBuilder(seq: 5)
        delta.deleteRow("b", at: (0, 1))
        delta.moveRow("d", from: (0, 3), to: (0, 0))
        delta.insertRow("x", at: (0, 2))
        #expect(try replica.apply(delta: delta.json) == .applied)
        #expect(replica.snapshotJSON == F.state(seq: 5, sections: [F.section("s", ["d", "a", "x", "c", "e"])]))
        #expect(replica.rowCount == 5)
        #expect(replica.indexPath(ofRow: "x") == RowIndexPath(section: 0, row: 2))
        #expect(replica.row(id: "b") == nil)
    }

    @Test func rowsMoveAcrossSections() throws {
        var replica = try F.replica(seq: 1, [F.section("A", ["a", "b", "c"]), F.section("B", ["p", "q"])])
        var delta = DeltaBuilder(seq: 2)
        delta.moveRow("b", from: (0, 1), to: (1, 1))
        delta.moveRow("p", from: (1, 0), to: (0, 0))
        try replica.apply(delta: delta.json)
        #expect(
            replica.snapshotJSON
                == F.state(seq: 2, sections: [F.section("A", ["p", "a", "c"]), F.section("B", ["q", "b"])]))
    }

    @Test func sectionInsertedWithRowsAndSectionDeletedWithRows() throws {
        var replica = try F.replica(
            seq: 1, [F.section("A", ["a", "b"]), F.section("B", ["c"]), F.section("C", ["d"])])
        var delta = DeltaBuilder(seq: 2)
        delta.deleteSection("B", at: 1)
        delta.insertSection("N", at: 0, rows: ["n1", "n2"])
        try replica.apply(delta: delta.json)
        #expect(
            replica.snapshotJSON
                == F.state(
                    seq: 2,
                    sections: [
                        F.section("N", ["n1", "n2"]), F.section("A", ["a", "b"]), F.section("C", ["d"]),
                    ]))
        #expect(replica.rowCount == 5)

        // "c" went with its section, so it may come back; "n1" arrived with its section.
        var next = DeltaBuilder(seq: 3)
        next.insertRow("c", at: (2, 1))
        try replica.apply(delta: next.json)
        #expect(
            replica.snapshotJSON
                == F.state(
                    seq: 3,
                    sections: [
                        F.section("N", ["n1", "n2"]), F.section("A", ["a", "b"]), F.section("C", ["d", "c"]),
                    ]))
        var duplicate = DeltaBuilder(seq: 4)
        duplicate.insertRow("n1", at: (1, 0))
        #expect(throws: ReplicaError.self) { try replica.apply(delta: duplicate.json) }
    }

    @Test func sectionsMoveWithTheRowsLeftInThem() throws {
        var replica = try F.replica(
            seq: 7, [F.section("A", ["a1", "a2"]), F.section("B", ["b1"]), F.section("C", ["c1"])])
        var delta = DeltaBuilder(seq: 8)
        delta.moveSection("C", from: 2, to: 0)
        delta.moveSection("A", from: 0, to: 2)
        delta.moveRow("a1", from: (0, 0), to: (1, 0))
        try replica.apply(delta: delta.json)
        #expect(
            replica.snapshotJSON
                == F.state(
                    seq: 8,
                    sections: [
                        F.section("C", ["c1"]), F.section("B", ["a1", "b1"]), F.section("A", ["a2"]),
                    ]))
    }

    @Test func unnamedSectionsKeepTheirRelativeOrderAroundInsertsAndMoves() throws {
        var replica = try F.replica(
            seq: 1, [F.section("A", []), F.section("B", []), F.section("C", []), F.section("D", [])])
        var delta = DeltaBuilder(seq: 2)
        delta.moveSection("D", from: 3, to: 1)
        delta.deleteSection("A", at: 0)
        delta.insertSection("X", at: 3, rows: [])
        try replica.apply(delta: delta.json)
        #expect(replica.sections.map(\.id) == ["B", "D", "C", "X"])
    }

    @Test func reconfiguredAndReloadedRowsAreReplacedByNewIndexPath() throws {
        var replica = try F.replica(seq: 3, [F.section("s", ["a", "b", "c"])])
        var delta = DeltaBuilder(seq: 4)
        delta.deleteRow("a", at: (0, 0))
        delta.reloadRow("b", at: (0, 0), row: F.row("b", "B as a banner", cell: "BannerCell"))
        delta.reconfigureRow("c", at: (0, 1), row: F.row("c", "C, cheaper"))
        try replica.apply(delta: delta.json)
        #expect(
            replica.snapshotJSON
                == F.state(
                    seq: 4,
                    sections: [
                        F.section(
                            "s",
                            rows: [
                                F.row("b", "B as a banner", cell: "BannerCell"), F.row("c", "C, cheaper"),
                            ])
                    ]))
    }

    @Test func contentsOnlyDeltaReplacesInPlaceAndLeavesEarlierCopiesAlone() throws {
        var replica = try F.replica(seq: 3, [F.section("A", ["a", "b"]), F.section("B", ["c"])])
        let before = replica
        var delta = DeltaBuilder(seq: 4)
        delta.reconfigureRow("b", at: (0, 1), row: F.row("b", "B, cheaper"))
        delta.reloadRow("c", at: (1, 0), row: F.row("c", "C as a banner", cell: "BannerCell"))
        delta.updateSection("B", at: 1, section: F.sectionObject("B", order: 2))
        #expect(try FeedDelta(json: delta.json).changesContentsOnly)
        #expect(try replica.apply(delta: delta.json) == .applied)
        #expect(
            replica.snapshotJSON
                == F.state(
                    seq: 4,
                    sections: [
                        F.section("A", rows: [F.row("a"), F.row("b", "B, cheaper")]),
                        F.section("B", rows: [F.row("c", "C as a banner", cell: "BannerCell")], order: 2),
                    ]))
        #expect(replica.rowCount == 3)
        #expect(before.snapshotJSON == F.state(seq: 3, sections: [F.section("A", ["a", "b"]), F.section("B", ["c"])]))
    }

    @Test func updatedSectionKeepsItsRowsAndIsFoundByNewIndex() throws {
        var replica = try F.replica(seq: 1, [F.section("A", ["a"]), F.section("B", ["b"])])
        var delta = DeltaBuilder(seq: 2)
        delta.insertSection("N", at: 0, rows: [])
        delta.updateSection("B", at: 2, section: F.sectionObject("B", order: 5, header: ["title": "Used"]))
        try replica.apply(delta: delta.json)
        #expect(
            replica.snapshotJSON
                == F.state(
                    seq: 2,
                    sections: [
                        F.section("N", []), F.section("A", ["a"]),
                        F.section("B", ["b"], order: 5, header: ["title": "Used"]),
                    ]))
    }

    @Test func rowFromADeletedSectionIntoASurvivingOneIsAnInsert() throws {
        var replica = try F.replica(seq: 1, [F.section("A", ["a"]), F.section("B", ["b", "m"])])
        var delta = DeltaBuilder(seq: 2)
        delta.deleteSection("B", at: 1)
        delta.insertRow("m", at: (0, 1))
        try replica.apply(delta: delta.json)
        #expect(replica.snapshotJSON == F.state(seq: 2, sections: [F.section("A", ["a", "m"])]))
        #expect(replica.row(id: "b") == nil)
        #expect(replica.indexPath(ofRow: "m") == RowIndexPath(section: 0, row: 1))
    }

    @Test func rowFromASurvivingSectionIntoAnInsertedOneIsADelete() throws {
        var replica = try F.replica(seq: 1, [F.section("A", ["a", "m"])])
        var delta = DeltaBuilder(seq: 2)
        delta.deleteRow("m", at: (0, 1))
        delta.insertSection("N", at: 1, rows: ["m"])
        try replica.apply(delta: delta.json)
        #expect(replica.snapshotJSON == F.state(seq: 2, sections: [F.section("A", ["a"]), F.section("N", ["m"])]))
        #expect(replica.indexPath(ofRow: "m") == RowIndexPath(section: 1, row: 0))
    }

    @Test func everythingAtOnce() throws {
        // old: A(a1 a2 a3) B(b1 b2) C(c1) D(d1)
        // new: C(c1 a3') N(n1) A(a1 b1) D(d1 x)   B deleted (b2 with it), b1 moved into A,
        // a2 deleted, a3 moved into C and reconfigured, C moved to the front, x inserted.
        var replica = try F.replica(
            seq: 10,
            [
                F.section("A", ["a1", "a2", "a3"]), F.section("B", ["b1", "b2"]), F.section("C", ["c1"]),
                F.section("D", ["d1"]),
            ])
        var delta = DeltaBuilder(seq: 11)
        delta.deleteSection("B", at: 1)
        delta.moveSection("C", from: 2, to: 0)
        delta.insertSection("N", at: 1, rows: ["n1"])
        delta.deleteRow("a2", at: (0, 1))
        delta.moveRow("a3", from: (0, 2), to: (0, 1))
        delta.insertRow("b1", at: (2, 1))
        delta.insertRow("x", at: (3, 1))
        delta.reconfigureRow("a3", at: (0, 1), row: F.row("a3", "a3 again"))
        try replica.apply(delta: delta.json)
        #expect(
            replica.snapshotJSON
                == F.state(
                    seq: 11,
                    sections: [
                        F.section("C", rows: [F.row("c1"), F.row("a3", "a3 again")]), F.section("N", ["n1"]),
                        F.section("A", ["a1", "b1"]), F.section("D", ["d1", "x"]),
                    ]))
        #expect(replica.rowCount == 7)
    }
}
