import RowCastClient
import RowCastJSON
import Testing

/// Deltas that do not fit the replica are refused whole, naming the problem.
@Suite struct FeedReplicaViolationTests {
    typealias F = Fixture

    /// A replica A(a b c) B(d) at seq 3.
    static func start() throws -> FeedReplica {
        try F.replica(seq: 3, [F.section("A", ["a", "b", "c"]), F.section("B", ["d"])])
    }

    /// Applies `delta`, expects a refusal of `kind`, and that the replica did not change.
    func expectRefusal(
        _ kind: ReplicaError.Kind, _ build: (inout DeltaBuilder) -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var replica = try Self.start()
        let before = replica
        var delta = DeltaBuilder(seq: 4)
        build(&delta)
        let error = #expect(throws: ReplicaError.self, sourceLocation: sourceLocation) {
            try replica.apply(delta: delta.json)
        }
        #expect(error?.kind == kind, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(replica == before, sourceLocation: sourceLocation)
        #expect(replica.snapshotJSON == before.snapshotJSON, sourceLocation: sourceLocation)
    }

    @Test func indexesOutOfBounds() throws {
        try expectRefusal(.indexOutOfBounds) { $0.deleteRow("a", at: (0, 9)) }
        try expectRefusal(.indexOutOfBounds) { $0.deleteRow("a", at: (5, 0)) }
        try expectRefusal(.indexOutOfBounds) { $0.moveRow("a", from: (0, 0), to: (0, 3)) }
        try expectRefusal(.indexOutOfBounds) { $0.insertRow("x", at: (0, 4)) }
        try expectRefusal(.indexOutOfBounds) { $0.insertRow("x", at: (2, 0)) }
        try expectRefusal(.indexOutOfBounds) { $0.deleteSection("A", at: 2) }
        try expectRefusal(.indexOutOfBounds) { $0.insertSection("X", at: 3, rows: []) }
        try expectRefusal(.indexOutOfBounds) { $0.moveSection("A", from: 0, to: 2) }
        try expectRefusal(.indexOutOfBounds) { $0.reconfigureRow("d", at: (1, 1), row: F.row("d")) }
        try expectRefusal(.indexOutOfBounds) { $0.updateSection("B", at: 2, section: F.sectionObject("B")) }
    }

    @Test func idsThatAreNotAtTheirIndex() throws {
        try expectRefusal(.idMismatch) { $0.deleteRow("b", at: (0, 0)) }
        try expectRefusal(.idMismatch) { $0.moveRow("c", from: (0, 1), to: (1, 0)) }
        try expectRefusal(.idMismatch) { $0.deleteSection("A", at: 1) }
        try expectRefusal(.idMismatch) { $0.moveSection("B", from: 0, to: 1) }
        try expectRefusal(.idMismatch) { $0.reloadRow("a", at: (0, 1), row: F.row("a")) }
        try expectRefusal(.idMismatch) { $0.reconfigureRow("a", at: (0, 0), row: F.row("zz")) }
        try expectRefusal(.idMismatch) { $0.insertRow("x", at: (0, 0), row: F.row("y")) }
        try expectRefusal(.idMismatch) { $0.updateSection("A", at: 1, section: F.sectionObject("A")) }
        // After deleting "a", index path [0,0] holds "b" in the new snapshot.
        try expectRefusal(.idMismatch) {
            $0.deleteRow("a", at: (0, 0))
            $0.reconfigureRow("a", at: (0, 0), row: F.row("a"))
        }
    }

    @Test func duplicateIdsAfterApplying() throws {
        try expectRefusal(.duplicateID) { $0.insertRow("a", at: (1, 0)) }
        try expectRefusal(.duplicateID) {
            $0.insertRow("x", at: (1, 0))
            $0.insertRow("x", at: (1, 1))
        }
        try expectRefusal(.duplicateID) { $0.insertSection("N", at: 0, rows: ["d"]) }
        try expectRefusal(.duplicateID) { $0.insertSection("B", at: 0, rows: []) }
        try expectRefusal(.duplicateID) {
            $0.moveRow("a", from: (0, 0), to: (1, 0))
            $0.insertRow("a", at: (0, 0))
        }
    }

    @Test func aLateViolationLeavesNoHalfAppliedState() throws {
        // Every structural step succeeds before stage 2 finds the bad entry.
        try expectRefusal(.idMismatch) {
            $0.deleteSection("B", at: 1)
            $0.insertSection("N", at: 0, rows: ["n"])
            $0.deleteRow("a", at: (0, 0))
            $0.insertRow("x", at: (1, 0))
            $0.reconfigureRow("c", at: (1, 0), row: F.row("c"))
        }
    }

    @Test func aLateViolationAfterAFewRowChangesInPlaceIsUndone() throws {
        // Held once, the replica's rows change in place; stage 2 then fails and they go back.
        var replica = try Self.start()
        var delta = DeltaBuilder(seq: 4)
        delta.deleteRow("a", at: (0, 0))
        delta.moveRow("b", from: (0, 1), to: (1, 1))
        delta.insertRow("x", at: (1, 0))
        delta.reconfigureRow("c", at: (1, 0), row: F.row("c"))  // [1,0] is "x" by then
        let error = #expect(throws: ReplicaError.self) { try replica.apply(delta: delta.json) }
        #expect(error?.kind == .idMismatch)
        #expect(replica.snapshotJSON == (try Self.start()).snapshotJSON)
        #expect(replica.rowCount == 4)
        #expect(replica.indexPath(ofRow: "b") == RowIndexPath(section: 0, row: 1))
        var valid = DeltaBuilder(seq: 4)
        valid.moveRow("b", from: (0, 1), to: (1, 1))
        #expect(try replica.apply(delta: valid.json) == .applied)
        #expect(
            replica.snapshotJSON
                == F.state(seq: 4, sections: [F.section("A", ["a", "c"]), F.section("B", ["d", "b"])]))
    }

    @Test func malformedDeltas() throws {
        var replica = try Self.start()
        let before = replica
        let bad: [JSONValue] = [
            ["event": "delta", "feed": "cars", "epoch": "e1", "seq": 4, "rows": ["deleted": "all"]],
            [
                "event": "delta", "feed": "cars", "epoch": "e1", "seq": 4,
                "rows": ["deleted": [["id": "a", "at": [0]]]],
            ],
            [
                "event": "delta", "feed": "cars", "epoch": "e1", "seq": 4,
                "rows": ["inserted": [["id": "x", "at": [0, 0]]]],
            ],
            ["event": "delta", "feed": "cars", "epoch": "e1", "seq": 4.5],
            ["event": "delta", "feed": "cars", "seq": 4],
        ]
        for delta in bad {
            let error = #expect(throws: ReplicaError.self) { try replica.apply(delta: delta) }
            #expect(error?.kind == .invalidDelta, "\(delta)")
        }
        try expectRefusal(.invalidDelta) {
            $0.deleteRow("a", at: (0, 0))
            $0.moveRow("a", from: (0, 0), to: (1, 0))
        }
        try expectRefusal(.invalidDelta) {
            $0.insertRow("x", at: (0, 1))
            $0.insertRow("y", at: (0, 1))
        }
        #expect(replica == before)
    }

    @Test func errorsNameFeedSeqAndRow() throws {
        var replica = try Self.start()
        var delta = DeltaBuilder(seq: 4)
        delta.deleteRow("b", at: (0, 0))
        let error = #expect(throws: ReplicaError.self) { try replica.apply(delta: delta.json) }
        #expect(
            error?.description
                == #"id_mismatch: feed cars, delta seq 4: rows.deleted names row "b" at [0,0], but the row there is "a""#
        )
    }
}
