import RowCastClient
import RowCastJSON
import Testing
@testable import RowCastGateway

@Suite struct FeedStreamStateTests {
    /// The snapshot message of feed `cars` at `seq` of epoch `e` (no rows).
    func snapshot(_ seq: Int) -> String {
        #"{"event":"snapshot","feed":"cars","seq":\#(seq),"epoch":"e","sections":[]}"#
    }

    /// The delta message with `seq`.
    func delta(_ seq: Int) -> String { #"{"event":"delta","seq":\#(seq)}"# }

    /// Everything queued in `outbox` so far.
    func drain(_ outbox: ConnectionOutbox) async -> [String] {
        outbox.finish()
        var texts: [String] = []
        for await text in outbox.messages { texts.append(text) }
        return texts
    }

    func events(_ texts: [String]) throws -> [String] {
        try texts.map { try JSONParser.parse($0)["event"]?.stringValue ?? "?" }
    }

    @Test func aNewConnectionGetsTheSnapshotThenThePosition() async throws {
        var state = FeedStreamState(feed: "cars", historyLimit: 10)
        state.load(seq: 3, epoch: "e", snapshot: snapshot(3))
        let outbox = ConnectionOutbox(limit: 10)
        _ = state.attach(outbox, resume: nil)
        #expect(await drain(outbox) == [snapshot(3), StreamMessages.position(feed: "cars", epoch: "e", seq: 3)])
    }

    @Test func withoutASnapshotMadeTheConnectionWaitsForOneAndNoDelta() async throws {
        var state = FeedStreamState(feed: "cars", historyLimit: 10)
        state.load(seq: 3, epoch: "e", snapshot: nil)
        state.apply(seq: 4, epoch: "e", deltaText: delta(4))
        let outbox = ConnectionOutbox(limit: 10)
        _ = state.attach(outbox, resume: nil)
        #expect(state.needsSnapshot)
        state.apply(seq: 5, epoch: "e", deltaText: delta(5))
        state.deliver(snapshot: snapshot(4), seq: 4, epoch: "e")  // stale: the replica moved on
        #expect(state.needsSnapshot)
        state.deliver(snapshot: snapshot(5), seq: 5, epoch: "e")
        #expect(!state.needsSnapshot)
        state.apply(seq: 6, epoch: "e", deltaText: delta(6))
        #expect(
            await drain(outbox) == [snapshot(5), StreamMessages.position(feed: "cars", epoch: "e", seq: 5), delta(6)])
    }

    @Test func aResumeTheHistoryCoversGetsOnlyTheMissedDeltas() async throws {
        var state = FeedStreamState(feed: "cars", historyLimit: 10)
        state.load(seq: 3, epoch: "e", snapshot: snapshot(3))
        state.apply(seq: 4, epoch: "e", deltaText: delta(4))
        state.apply(seq: 5, epoch: "e", deltaText: delta(5))
        let covered = ConnectionOutbox(limit: 10)
        _ = state.attach(covered, resume: ResumePoint(seq: 4, epoch: "e"))
        #expect(await drain(covered) == [delta(5), StreamMessages.position(feed: "cars", epoch: "e", seq: 5)])
        let upToDate = ConnectionOutbox(limit: 10)
        _ = state.attach(upToDate, resume: ResumePoint(seq: 5, epoch: "e"))
        #expect(try events(await drain(upToDate)) == ["position"])
        // Not covered: the first waits for a snapshot; the others get the one made for it.
        for (index, resume) in [
            ResumePoint(seq: 2, epoch: "e"), ResumePoint(seq: 4, epoch: "f"), ResumePoint(seq: 9, epoch: "e"),
        ].enumerated() {
            let uncovered = ConnectionOutbox(limit: 10)
            _ = state.attach(uncovered, resume: resume)
            #expect(state.needsSnapshot == (index == 0), "\(resume) is not covered")
            state.deliver(snapshot: snapshot(5), seq: 5, epoch: "e")
            #expect(try events(await drain(uncovered)) == ["snapshot", "position"])
        }
    }

    @Test func aConnectionBeforeTheFirstSnapshotGetsItWhenItComes() async throws {
        var state = FeedStreamState(feed: "cars", historyLimit: 10)
        let outbox = ConnectionOutbox(limit: 10)
        _ = state.attach(outbox, resume: nil)
        #expect(!state.needsSnapshot)
        state.load(seq: 1, epoch: "e", snapshot: snapshot(1))
        #expect(await drain(outbox) == [snapshot(1)])
    }

    @Test func aSlowConnectionIsDroppedAndTheOthersGetEverything() async throws {
        var state = FeedStreamState(feed: "cars", historyLimit: 100)
        state.load(seq: 0, epoch: "e", snapshot: snapshot(0))
        let slow = ConnectionOutbox(limit: 3)
        let fast = ConnectionOutbox(limit: 100)
        _ = state.attach(slow, resume: nil)
        _ = state.attach(fast, resume: nil)
        for seq in 1...5 { state.apply(seq: seq, epoch: "e", deltaText: delta(seq)) }
        #expect(slow.hasOverflowed)
        #expect(!fast.hasOverflowed)
        #expect(state.connections.count == 1)
        #expect(state.overflowCount == 1)
        #expect(try events(await drain(fast)) == ["snapshot", "position"] + Array(repeating: "delta", count: 5))
    }

    @Test func detachFinishesTheQueue() async throws {
        var state = FeedStreamState(feed: "cars", historyLimit: 10)
        state.load(seq: 1, epoch: "e", snapshot: snapshot(1))
        let outbox = ConnectionOutbox(limit: 10)
        let id = state.attach(outbox, resume: nil)
        state.detach(id)
        #expect(state.connections.isEmpty)
        #expect(!outbox.offer("late"))
    }
}
