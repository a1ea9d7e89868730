import RowCastClient
import RowCastJSON
import Testing
@testable import RowCastGateway

/// A feed's windows as the hub keeps them: opened, moved, reopened after a reload, refused,
/// and dropped when their queue overflows.
@Suite struct WindowSubscriptionsTests {
    /// A replica of one section of `count` rows `r0`, `r1`, ... at `seq`.
    func replica(rows count: Int, seq: Int = 1) throws -> FeedReplica {
        let rows: [JSONValue] = (0..<count).map { ["id": .string("r\($0)"), "cell": "A", "content": ["v": 0]] }
        return try FeedReplica(snapshot: [
            "feed": "f", "seq": .number(Double(seq)), "epoch": "e", "sections": [["id": "s", "rows": .array(rows)]],
        ])
    }

    /// Every message queued in `outbox`, parsed.
    func drain(_ outbox: ConnectionOutbox) async throws -> [JSONValue] {
        outbox.finish()
        var messages: [JSONValue] = []
        for await text in outbox.messages { messages.append(try JSONParser.parse(text)) }
        return messages
    }

    @Test func aWindowOpensAtItsLastRequestAndMovesWithOneUpdate() async throws {
        let feed = try replica(rows: 100)
        var windows = WindowSubscriptions()
        let outbox = ConnectionOutbox(limit: 10)
        let id = windows.add(WindowRequest(start: .offset(0), limit: 5), outbox: outbox, ownsOutbox: false)
        let moved1 = windows.requestMove(id, to: WindowRequest(start: .offset(40), limit: 5))
        #expect(moved1)
        #expect(windows.hasWork)
        windows.serve(replica: feed, layout: FlatLayout(feed))
        #expect(!windows.hasWork)
        let moved2 = windows.requestMove(id, to: WindowRequest(start: .after("r49"), limit: 5))
        #expect(moved2)
        windows.serve(replica: feed, layout: FlatLayout(feed))
        let messages = try await drain(outbox)
        #expect(messages.map { $0["event"] } == ["window", "window-update"])
        #expect(messages[0]["offset"]?.intValue == 40)
        #expect(messages[1]["offset"]?.intValue == 50)
        #expect(messages[1]["inserted"]?.arrayValue?.count == 5)
        #expect(messages[1]["deleted"]?.arrayValue?.count == 5)
    }

    @Test func aWindowOfAMissingRowIsRefusedAndAStreamOfItEnds() async throws {
        let feed = try replica(rows: 10)
        var windows = WindowSubscriptions()
        let outbox = ConnectionOutbox(limit: 10)
        _ = windows.add(WindowRequest(start: .around("nope"), limit: 5), outbox: outbox, ownsOutbox: true)
        windows.serve(replica: feed, layout: FlatLayout(feed))
        #expect(windows.count == 0)
        var messages: [JSONValue] = []
        for await text in outbox.messages { messages.append(try JSONParser.parse(text)) }  // ended by the refusal
        #expect(messages.map { $0["code"] } == ["not_found"])
        #expect(messages.first?["field"] == "around")
    }

    @Test func aReloadOpensEveryWindowAgainWhereItWas() async throws {
        var windows = WindowSubscriptions()
        let outbox = ConnectionOutbox(limit: 10)
        _ = windows.add(WindowRequest(start: .offset(20), limit: 5), outbox: outbox, ownsOutbox: false)
        let first = try replica(rows: 100)
        windows.serve(replica: first, layout: FlatLayout(first))
        windows.reopenAll()
        let reloaded = try replica(rows: 100, seq: 9)
        windows.serve(replica: reloaded, layout: FlatLayout(reloaded))
        let messages = try await drain(outbox)
        #expect(messages.map { $0["event"] } == ["window", "window"])
        #expect(messages.map { $0["offset"]?.intValue } == [20, 20])
        #expect(messages.last?["seq"]?.intValue == 9)
    }

    @Test func aWindowWhoseQueueOverflowsIsDroppedAndCounted() throws {
        let feed = try replica(rows: 100)
        var windows = WindowSubscriptions()
        let outbox = ConnectionOutbox(limit: 1)
        let id = windows.add(WindowRequest(start: .offset(0), limit: 5), outbox: outbox, ownsOutbox: false)
        windows.serve(replica: feed, layout: FlatLayout(feed))
        let moved3 = windows.requestMove(id, to: WindowRequest(start: .offset(50), limit: 5))
        #expect(moved3)
        windows.serve(replica: feed, layout: FlatLayout(feed))
        #expect(windows.count == 0)
        #expect(windows.overflowCount == 1)
        #expect(outbox.hasOverflowed)
        let moved4 = windows.requestMove(id, to: WindowRequest(start: .offset(0), limit: 5))
        #expect(!moved4)
    }
}
