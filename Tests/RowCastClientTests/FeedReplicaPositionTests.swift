import RowCastClient
import RowCastJSON
import Testing

/// `position` events on the feed's topic: a replica that has every delta up to the position
/// ignores it; one behind it, or on another epoch, is told to resync.
@Suite struct FeedReplicaPositionTests {
    typealias F = Fixture

    static func position(seq: Int, epoch: String = F.epoch, feed: String = "cars") -> JSONValue {
        ["event": "position", "feed": .string(feed), "epoch": .string(epoch), "seq": .number(Double(seq))]
    }

    @Test("a position at or before the replica's seq changes nothing")
    func caughtUp() throws {
        var replica = try F.replica(seq: 3, [F.section("A", ["a"])])
        let before = replica
        #expect(try replica.apply(delta: Self.position(seq: 3)) == .alreadyIncluded)
        #expect(try replica.apply(delta: Self.position(seq: 1)) == .alreadyIncluded)
        #expect(replica == before)
    }

    @Test(
        "a position past the replica's seq is a gap naming how many deltas were missed; another epoch is epoch_changed")
    func behind() throws {
        var replica = try F.replica(seq: 3, [F.section("A", ["a"])])
        let gap = #expect(throws: ReplicaError.self) { try replica.apply(delta: Self.position(seq: 5)) }
        #expect(gap?.kind == .gap)
        #expect(gap?.message.contains("2 delta(s) were missed") == true, "\(String(describing: gap))")
        let epoch = #expect(throws: ReplicaError.self) {
            try replica.apply(delta: Self.position(seq: 3, epoch: "another"))
        }
        #expect(epoch?.kind == .epochChanged)
        let feed = #expect(throws: ReplicaError.self) { try replica.apply(delta: Self.position(seq: 3, feed: "bikes")) }
        #expect(feed?.kind == .feedMismatch)
        let malformed = #expect(throws: ReplicaError.self) {
            try replica.apply(delta: ["event": "position", "feed": "cars"])
        }
        #expect(malformed?.kind == .invalidDelta)
    }

    @Test("a replica of a feed that did not exist is behind any position past seq 0")
    func emptyFeed() throws {
        var replica = try FeedReplica(snapshot: [
            "ok": true, "op": "snapshot", "feed": "cars", "seq": 0, "epoch": .null, "sections": [],
        ])
        #expect(try replica.apply(delta: Self.position(seq: 0)) == .alreadyIncluded)
        #expect(throws: ReplicaError.self) { try replica.apply(delta: Self.position(seq: 1)) }
    }
}
