import RowCastClient
import RowCastJSON
import Testing

/// Sequence and epoch rules of PROTOCOL.md, and loading and printing snapshots.
@Suite struct FeedReplicaSequenceTests {
    typealias F = Fixture

    @Test func deltasNotNewerThanTheReplicaAreIgnored() throws {
        var replica = try F.replica(seq: 5, [F.section("s", ["a"])])
        let before = replica
        for seq in [5, 4, 1] {
            var stale = DeltaBuilder(seq: seq)
            stale.deleteRow("zzz", at: (9, 9))  // would not apply: proves it was not looked at
            #expect(try replica.apply(delta: stale.json) == .alreadyIncluded)
        }
        #expect(replica == before)
        #expect(replica.seq == 5)
    }

    @Test func firstDeltaAfterANullEpochSnapshotStartsTheFeed() throws {
        var replica = try F.replica(seq: 0, epoch: nil, [])
        #expect(replica.epoch == nil)
        var first = DeltaBuilder(seq: 1)
        first.epoch = "fresh"
        first.insertSection("default", at: 0, rows: ["42"])
        #expect(try replica.apply(delta: first.json) == .applied)
        #expect(replica.epoch == "fresh")
        #expect(replica.snapshotJSON == F.state(seq: 1, epoch: "fresh", sections: [F.section("default", ["42"])]))

        var second = DeltaBuilder(seq: 2)
        second.epoch = "fresh"
        second.deleteSection("default", at: 0)
        #expect(try replica.apply(delta: second.json) == .applied)
        #expect(replica.snapshotJSON == F.state(seq: 2, epoch: "fresh", sections: []))
    }

    @Test func aLaterDeltaAfterANullEpochSnapshotIsAGap() throws {
        var replica = FeedReplica(feed: "cars")
        let error = #expect(throws: ReplicaError.self) { try replica.apply(delta: DeltaBuilder(seq: 2).json) }
        #expect(error?.kind == .gap)
        #expect(replica == FeedReplica(feed: "cars"))
    }

    @Test func gapIsDetected() throws {
        var replica = try F.replica(seq: 5, [F.section("s", ["a"])])
        let before = replica
        var delta = DeltaBuilder(seq: 7)
        delta.insertRow("b", at: (0, 1))
        let error = #expect(throws: ReplicaError.self) { try replica.apply(delta: delta.json) }
        #expect(error?.kind == .gap)
        #expect(error?.needsResync == true)
        #expect(error?.message.contains("seq 5") == true)
        #expect(replica == before)
    }

    @Test func anotherEpochIsDetectedEvenForOldSeqs() throws {
        var replica = try F.replica(seq: 5, [F.section("s", ["a"])])
        let before = replica
        for seq in [6, 1] {
            var delta = DeltaBuilder(seq: seq)
            delta.epoch = "e2"
            let error = #expect(throws: ReplicaError.self) { try replica.apply(delta: delta.json) }
            #expect(error?.kind == .epochChanged)
        }
        #expect(replica == before)
    }

    @Test func deltaOfAnotherFeedIsRefused() throws {
        var replica = try F.replica(seq: 1, [])
        var delta = DeltaBuilder(seq: 2)
        delta.feed = "car"
        let error = #expect(throws: ReplicaError.self) { try replica.apply(delta: delta.json) }
        #expect(error?.kind == .feedMismatch)
        #expect(replica.seq == 1)
    }

    @Test func snapshotJSONHasTheSnapshotShapeInWireOrder() throws {
        let text =
            #"{"ok":true,"op":"snapshot","feed":"cars","seq":12,"epoch":"7d0c","sections":[{"id":"default","order":null,"type":null,"header":null,"headerRow":null,"rows":[{"id":"42","type":"product","cell":"ProductImageCell","height":120,"content":{"title":"Tesla","price":"$39999"},"actions":[]}]}],"pending":0}"#
        let replica = try FeedReplica(snapshot: try JSONParser.parse(text))
        let expected =
            #"{"feed":"cars","seq":12,"epoch":"7d0c","sections":[{"id":"default","order":null,"type":null,"header":null,"headerRow":null,"rows":[{"id":"42","type":"product","cell":"ProductImageCell","height":120,"content":{"title":"Tesla","price":"$39999"},"actions":[]}]}]}"#
        #expect(String(decoding: replica.snapshotJSON.serialized(), as: UTF8.self) == expected)
        #expect(try FeedReplica(snapshot: replica.snapshotJSON) == replica)
    }

    @Test(arguments: [
        #"[]"#,
        #"{"seq":1,"epoch":"e","sections":[]}"#,
        #"{"feed":"cars","seq":-1,"epoch":"e","sections":[]}"#,
        #"{"feed":"cars","seq":1,"epoch":3,"sections":[]}"#,
        #"{"feed":"cars","seq":1,"epoch":"e","sections":[{"id":"s","rows":[{"id":"a"},{"id":"a"}]}]}"#,
        #"{"feed":"cars","seq":1,"epoch":"e","sections":[{"id":"s","rows":[]},{"id":"s","rows":[]}]}"#,
        #"{"feed":"cars","seq":1,"epoch":"e","sections":[{"id":"s","rows":[{"title":"no id"}]}]}"#,
    ])
    func malformedSnapshotsAreRefused(text: String) throws {
        let error = #expect(throws: ReplicaError.self) { try FeedReplica(snapshot: try JSONParser.parse(text)) }
        #expect(error?.kind == .invalidSnapshot)
    }
}
