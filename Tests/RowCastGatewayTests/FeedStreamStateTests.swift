import RowCastClient
import RowCastKit
import Testing
@testable import RowCastGateway

@Suite struct FeedStreamStateTests {
    /// A replica of feed `cars` at `seq` of epoch `e` with rows `ids` in one section.
    func replica(seq: Int, ids: [String]) throws -> FeedReplica {
        let rows = ids.map { JSONValue.object(JSONObject([("id", .string($0)), ("type", "product"), ("cell", "C"), ("height", 44), ("content", [:]), ("actions", [])])) }
        let section: JSONValue = ["id": "default", "order": nil, "type": nil, "header": nil, "headerRow": nil, "rows": .array(rows)]
        return try FeedReplica(snapshot: ["feed": "cars", "seq": .number(Double(seq)), "epoch": "e", "sections": [section]])
    }

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
        state.load(try replica(seq: 3, ids: ["1"]))
        let outbox = ConnectionOutbox(limit: 10)
        _ = state.attach(outbox, resume: nil)
        let texts = await drain(outbox)
        #expect(try events(texts) == ["snapshot", "position"])
        #expect(try JSONParser.parse(texts[0])["seq"]?.numberValue == 3)
    }

    @Test func aResumeTheHistoryCoversGetsOnlyTheMissedDeltas() async throws {
        var state = FeedStreamState(feed: "cars", historyLimit: 10)
        state.load(try replica(seq: 3, ids: ["1"]))
        state.apply(try replica(seq: 4, ids: ["1", "2"]), deltaText: #"{"event":"delta","seq":4}"#)
        state.apply(try replica(seq: 5, ids: ["1", "2", "3"]), deltaText: #"{"event":"delta","seq":5}"#)
        let covered = ConnectionOutbox(limit: 10)
        _ = state.attach(covered, resume: ResumePoint(seq: 4, epoch: "e"))
        #expect(await drain(covered) == [#"{"event":"delta","seq":5}"#, StreamMessages.position(feed: "cars", epoch: "e", seq: 5)])
        let tooOld = ConnectionOutbox(limit: 10)
        _ = state.attach(tooOld, resume: ResumePoint(seq: 2, epoch: "e"))
        #expect(try events(await drain(tooOld)) == ["snapshot", "position"])
        let otherEpoch = ConnectionOutbox(limit: 10)
        _ = state.attach(otherEpoch, resume: ResumePoint(seq: 4, epoch: "f"))
        #expect(try events(await drain(otherEpoch)) == ["snapshot", "position"])
    }

    @Test func aConnectionBeforeTheFirstSnapshotGetsItWhenItComes() async throws {
        var state = FeedStreamState(feed: "cars", historyLimit: 10)
        let outbox = ConnectionOutbox(limit: 10)
        _ = state.attach(outbox, resume: nil)
        state.load(try replica(seq: 1, ids: ["1"]))
        #expect(try events(await drain(outbox)) == ["snapshot"])
    }

    @Test func aSlowConnectionIsDroppedAndTheOthersGetEverything() async throws {
        var state = FeedStreamState(feed: "cars", historyLimit: 100)
        state.load(try replica(seq: 0, ids: []))
        let slow = ConnectionOutbox(limit: 3)
        let fast = ConnectionOutbox(limit: 100)
        _ = state.attach(slow, resume: nil)
        _ = state.attach(fast, resume: nil)
        var ids: [String] = []
        for seq in 1...5 {
            ids.append("\(seq)")
            state.apply(try replica(seq: seq, ids: ids), deltaText: #"{"event":"delta","seq":\#(seq)}"#)
        }
        #expect(slow.hasOverflowed)
        #expect(!fast.hasOverflowed)
        #expect(state.connections.count == 1)
        #expect(state.overflowCount == 1)
        #expect(try events(await drain(fast)) == ["snapshot", "position"] + Array(repeating: "delta", count: 5))
    }

    @Test func detachFinishesTheQueue() async throws {
        var state = FeedStreamState(feed: "cars", historyLimit: 10)
        state.load(try replica(seq: 1, ids: ["1"]))
        let outbox = ConnectionOutbox(limit: 10)
        let id = state.attach(outbox, resume: nil)
        state.detach(id)
        #expect(state.connections.isEmpty)
        #expect(!outbox.offer("late"))
    }
}
