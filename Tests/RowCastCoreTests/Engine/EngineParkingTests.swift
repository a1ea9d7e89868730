import Foundation
@testable import RowCastEngine
import RowCastJSON
@testable import RowCastPluginHosting
@testable import RowCastStore
import Testing

/// Messages that overtake one whose rows have not arrived, and batches parked with messages
/// carried into the next (`Engine.advanceBatch(waiting: false)`, `Engine.parkBatch`): a host
/// that hangs costs only the messages that wait on it, and every feed and connection keeps
/// its order.
@Suite("Engine parking")
struct EngineParkingTests {
    typealias SteppedRenderer = EngineBatchResumeTests.SteppedRenderer

    /// An acked upsert of item `id` to `feed`, on `connection`, with reply token `token`.
    func control(_ feed: String, _ id: String, token: Int, connection: UInt64) -> IncomingMessage {
        IncomingMessage(
            origin: .control(replyTo: token),
            body: upsert(feed, item(id), req: .number(Double(token + 1))).serialized(),
            connection: connection)
    }

    /// An upsert of item `id` to `feed` on the ingest socket.
    func ingest(_ feed: String, _ id: String) -> IncomingMessage {
        IncomingMessage(origin: .ingest, body: upsert(feed, item(id)).serialized())
    }

    func ids(_ engine: Engine, _ feed: String) -> [String] {
        engine.feeds[feed]?.allItems.map(\.input.id).sorted() ?? []
    }

    @Test("a message of another feed and connection overtakes one whose row has not arrived")
    func otherFeedOvertakes() throws {
        let renderer = SteppedRenderer()
        let engine = Engine(renderer: renderer, makeEpoch: { "e" })
        engine.beginBatch([
            control("slow", "a", token: 0, connection: 1), control("fast", "b", token: 1, connection: 2),
            control("slow", "c", token: 2, connection: 3),
        ])
        let stream = try #require(renderer.streams.last)
        stream.releasedJobs = [1, 2]
        #expect(engine.advanceBatch(waiting: false) == nil)
        // b went ahead; c waits behind a (the same feed), although its row is in.
        #expect(ids(engine, "fast") == ["b"])
        #expect(ids(engine, "slow") == [])
        #expect(engine.counters.received == 1)

        stream.released = 3
        let output = try #require(engine.advanceBatch(waiting: false))
        #expect(ids(engine, "slow") == ["a", "c"])
        #expect(output.replies.map(\.token) == [1, 0, 2])
        #expect(stream.waitedInside == 0)
    }

    @Test("requests of one connection keep their order, whatever their feeds")
    func connectionKeepsOrder() throws {
        let renderer = SteppedRenderer()
        let engine = Engine(renderer: renderer, makeEpoch: { "e" })
        engine.beginBatch([
            control("slow", "a", token: 0, connection: 7), control("fast", "b", token: 1, connection: 7),
        ])
        try #require(renderer.streams.last).releasedJobs = [1]
        #expect(engine.advanceBatch(waiting: false) == nil)
        #expect(engine.counters.received == 0)
    }

    @Test("ingest keeps its order per feed only")
    func ingestOrderPerFeed() throws {
        let renderer = SteppedRenderer()
        let engine = Engine(renderer: renderer, makeEpoch: { "e" })
        engine.beginBatch([ingest("slow", "a"), ingest("fast", "b"), ingest("slow", "c")])
        try #require(renderer.streams.last).releasedJobs = [1, 2]
        #expect(engine.advanceBatch(waiting: false) == nil)
        #expect(ids(engine, "fast") == ["b"])
        #expect(ids(engine, "slow") == [])
    }

    @Test("nothing overtakes a reload, and a reload overtakes nothing")
    func reloadKeepsItsPlace() throws {
        let renderer = SteppedRenderer()
        let engine = Engine(renderer: renderer, makeEpoch: { "e" })
        let reload = IncomingMessage(
            origin: .control(replyTo: 1), body: Array(#"{"op":"reload","req":2}"#.utf8), connection: 2)
        engine.beginBatch([
            control("slow", "a", token: 0, connection: 1), reload, control("fast", "b", token: 2, connection: 3),
        ])
        try #require(renderer.streams.last).releasedJobs = [1]
        #expect(engine.advanceBatch(waiting: false) == nil)
        #expect(engine.counters.received == 0)
    }

    @Test("a parked batch answers what it applied and carries the rest, first, into the next batch")
    func parkCarriesTheRest() throws {
        let renderer = SteppedRenderer()
        let engine = Engine(renderer: renderer, makeEpoch: { "e" })
        engine.beginBatch([
            control("slow", "a", token: 0, connection: 1), control("fast", "b", token: 1, connection: 2),
            ingest("slow", "c"),
        ])
        let first = try #require(renderer.streams.last)
        first.releasedJobs = [1, 2]
        #expect(engine.advanceBatch(waiting: false) == nil)
        let (output, applied, parked) = engine.parkBatch()
        #expect(applied == 1)
        #expect(parked == [0])
        #expect(output.replies.map(\.token) == [1])
        #expect(!engine.isBatchInProgress)
        #expect(engine.hasCarriedMessages)
        #expect(engine.carriedReplyCount == 1)
        #expect(engine.carriedWait != nil)
        #expect(!engine.carriedCanAdvance)

        first.released = 3
        #expect(engine.carriedCanAdvance)
        // The carried request takes token 0; the new batch's own start at carriedReplyCount.
        engine.beginBatch([control("other", "d", token: 1, connection: 1)])
        try #require(renderer.streams.last).released = 1
        let next = try #require(engine.advanceBatch(waiting: false))
        #expect(next.replies.map(\.token) == [0, 1])
        #expect(ids(engine, "slow") == ["a", "c"])
        #expect(ids(engine, "other") == ["d"])
        #expect(!engine.hasCarriedMessages)
        #expect(first.waitedInside == 0)
    }

    @Test("a durable engine commits a parked batch's applied part, and nothing when it applied nothing")
    func durableParks() throws {
        let directory = try ScratchDirectory()
        let renderer = SteppedRenderer()
        let durable = DurableEngine(
            engine: Engine(renderer: renderer, makeEpoch: { "e" }),
            store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try durable.start()
        durable.begin([control("slow", "a", token: 0, connection: 1)], receipt: nil)
        #expect(durable.resume() == .rendering)
        #expect(durable.park() == ([0], false))
        #expect(!durable.hasHeldOutputs)

        durable.begin([control("fast", "b", token: 1, connection: 2)], receipt: nil)
        try #require(renderer.streams.last).released = 1
        #expect(durable.resume() == .rendering)  // a still waits
        #expect(durable.park() == ([0], false))
        let outputs = try durable.flush()
        #expect(outputs.map { $0.replies.map(\.token) } == [[1]])

        try #require(renderer.streams.first).released = 1
        durable.begin([], receipt: nil)
        #expect(durable.resume() == .applied(deferring: false))
        #expect(try durable.flush().map { $0.replies.map(\.token) } == [[0]])
        #expect(durable.engine.feeds["slow"]?.allItems.map(\.input.id) == ["a"])
        _ = durable.close()
    }

    @Test("a parked batch whose applied part holds a reload says so, so the loop settles and flushes first")
    func parkedReloadDefers() throws {
        let directory = try ScratchDirectory()
        let renderer = SteppedRenderer()
        let durable = DurableEngine(
            engine: Engine(renderer: renderer, makeEpoch: { "e" }),
            store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try durable.start()
        let reload = IncomingMessage(
            origin: .control(replyTo: 0), body: Array(#"{"op":"reload","req":1}"#.utf8), connection: 1)
        durable.begin([reload, control("slow", "a", token: 1, connection: 2)], receipt: nil)
        #expect(durable.resume() == .rendering)
        let (parked, deferring) = durable.park()
        #expect(parked == [1])
        #expect(deferring)
        try #require(renderer.streams.last).released = 1
        durable.begin([], receipt: nil)
        #expect(durable.resume(waiting: true) == .applied(deferring: false))
        let outputs = try durable.flush()
        #expect(outputs.map(\.deferred.count) == [1, 0])
        #expect(outputs.map { $0.replies.map(\.token) } == [[], [0]])
        _ = durable.close()
    }

    @Test("a batch that waits only on carried messages, or on messages held behind them, does not wait on its own rows")
    func waitsOnOwnRowsOnlyForFreshOnes() throws {
        let renderer = SteppedRenderer()
        let engine = Engine(renderer: renderer, makeEpoch: { "e" })
        engine.beginBatch([control("slow", "a", token: 0, connection: 1)])
        #expect(engine.advanceBatch(waiting: false) == nil)
        #expect(engine.waitsOnOwnRows)
        _ = engine.parkBatch()

        // Its own message is held behind the carried one (the same feed): nothing fresh to wait on.
        engine.beginBatch([control("slow", "b", token: 1, connection: 2)])
        #expect(engine.advanceBatch(waiting: false) == nil)
        #expect(!engine.waitsOnOwnRows)
        _ = engine.parkBatch()

        // A message of another feed whose row has not arrived is worth a wait.
        engine.beginBatch([control("other", "c", token: 2, connection: 3)])
        #expect(engine.advanceBatch(waiting: false) == nil)
        #expect(engine.waitsOnOwnRows)
    }
}
