import Foundation
@testable import RowCastEngine
import RowCastJSON
@testable import RowCastPluginHosting
@testable import RowCastStore
import Testing

/// A batch that the loop applies as its rows arrive (`beginBatch`, `advanceBatch(waiting:
/// false)`, `DurableEngine.begin`/`resume`): the engine stops before a message whose rows are
/// not in, hands control back, and ends with the output `process` gives for the same batch.
@Suite("Engine batch resume")
struct EngineBatchResumeTests {
    /// A renderer in batches whose outcomes arrive when the test releases them.
    final class SteppedRenderer: RowRendering {
        let inner = FakeRenderer()
        /// The streams started, newest last.
        var streams: [SteppedStream] = []

        func renderItem(type: String, input: [UInt8]) -> RenderOutcome { inner.renderItem(type: type, input: input) }
        func renderHeader(type: String, input: [UInt8]) -> RenderOutcome {
            inner.renderHeader(type: type, input: input)
        }
        func select(type: String, input: [UInt8]) -> RenderOutcome { inner.select(type: type, input: input) }
        func rendererIdentity(forItemType type: String) -> String? { inner.rendererIdentity(forItemType: type) }
        func rendererIdentity(forHeaderType type: String) -> String? { inner.rendererIdentity(forHeaderType: type) }
        func pluginsDescription() -> JSONObject { inner.pluginsDescription() }
        var pluginCount: Int { inner.pluginCount }
        var rendersInBatches: Bool { true }

        func startRendering(_ jobs: [RenderJob]) -> any RenderStream {
            let stream = SteppedStream(inner.render(jobs))
            streams.append(stream)
            return stream
        }
    }

    /// Outcomes known from the start, answered only up to `released` and for `releasedJobs`.
    final class SteppedStream: RenderStream {
        let outcomes: [RenderOutcome]
        var released = 0
        /// Jobs answered past `released`.
        var releasedJobs: Set<Int> = []
        /// How often an outcome was taken that was not released (a wait inside the engine).
        var waitedInside = 0

        init(_ outcomes: [RenderOutcome]) { self.outcomes = outcomes }

        func outcome(at index: Int) -> RenderOutcome {
            if !hasOutcome(at: index) { waitedInside += 1 }
            return outcomes[index]
        }
        func hasOutcomes(through index: Int) -> Bool { index < released }
        func hasOutcome(at index: Int) -> Bool { index < released || releasedJobs.contains(index) }
        var renderWait: RenderWait? {
            released < outcomes.count ? RenderWait(descriptors: [], within: .milliseconds(1)) : nil
        }
        func finish() { released = outcomes.count }
    }

    func messages(_ ids: [String]) -> [IncomingMessage] {
        ids.enumerated().map { index, id in
            IncomingMessage(
                origin: .control(replyTo: index),
                body: upsert("f", item(id), req: .number(Double(index + 1))).serialized())
        }
    }

    func engine(_ renderer: any RowRendering) -> Engine {
        Engine(renderer: renderer, makeEpoch: { "epoch-1" })
    }

    @Test("stops before each message whose row has not arrived, applies the rest as rows come in")
    func stopsAndResumes() throws {
        let renderer = SteppedRenderer()
        let engine = engine(renderer)
        engine.beginBatch(messages(["a", "b", "c"]))
        let stream = try #require(renderer.streams.last)
        #expect(engine.isBatchInProgress)

        var output = engine.advanceBatch(waiting: false)
        #expect(output == nil)
        #expect(engine.counters.received == 0)
        #expect(engine.renderWait != nil)

        stream.released = 2
        output = engine.advanceBatch(waiting: false)
        #expect(output == nil)
        #expect(engine.counters.received == 2)
        #expect(engine.feeds["f"]?.allItems.map(\.input.id).sorted() == ["a", "b"])

        stream.released = 3
        let finished = try #require(engine.advanceBatch(waiting: false))
        #expect(!engine.isBatchInProgress)
        #expect(engine.renderWait == nil)
        #expect(stream.waitedInside == 0)
        #expect(finished.replies.count == 3)

        // The same batch applied in one call gives the same output.
        let reference = self.engine(SteppedRenderer()).process(messages(["a", "b", "c"]))
        #expect(finished.replies.map(\.body) == reference.replies.map(\.body))
        #expect(finished.publications.map(\.body) == reference.publications.map(\.body))
        #expect(finished.positions == reference.positions)
    }

    @Test("waiting, it applies the whole batch in one call")
    func waitingFinishes() throws {
        let renderer = SteppedRenderer()
        let engine = engine(renderer)
        engine.beginBatch(messages(["a", "b"]))
        let output = try #require(engine.advanceBatch(waiting: true))
        #expect(output.replies.count == 2)
        #expect(try #require(renderer.streams.last).waitedInside == 2)
    }

    @Test("a batch with nothing to render finishes without waiting")
    func nothingToRender() throws {
        let engine = engine(SteppedRenderer())
        engine.beginBatch([IncomingMessage(origin: .control(replyTo: 0), body: Array(#"{"op":"status","req":1}"#.utf8))]
        )
        #expect(engine.renderWait == nil)
        let output = try #require(engine.advanceBatch(waiting: false))
        #expect(output.replies.count == 1)
    }

    @Test("while a batch waits for rows, the commit of the batch before it finishes and its output is released")
    func durableReleasesEarlierBatchMeanwhile() throws {
        let directory = try ScratchDirectory()
        let renderer = SteppedRenderer()
        let durable = DurableEngine(
            engine: engine(renderer), store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try durable.start()

        durable.begin(messages(["a"]), receipt: nil)
        try #require(renderer.streams.last).released = 1
        #expect(durable.resume() == .applied(deferring: false))
        durable.startCommit(force: true)
        #expect(durable.isCommitting)

        durable.begin(messages(["b"]), receipt: nil)
        #expect(durable.resume() == .rendering)
        #expect(durable.renderWait != nil)
        var released: [EngineOutput] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while released.isEmpty && ContinuousClock.now < deadline {
            var entry = pollfd(fd: durable.waitDescriptors[0], events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 100)
            released += durable.advanceWhileWaiting()
        }
        #expect(released.count == 1)
        #expect(released.first?.replies.count == 1)
        #expect(durable.resume() == .rendering)

        try #require(renderer.streams.last).released = 1
        #expect(durable.resume() == .applied(deferring: false))
        let rest = try durable.flush()
        #expect(rest.count == 1)
        #expect(durable.engine.feeds["f"]?.allItems.map(\.input.id).sorted() == ["a", "b"])
        _ = durable.close()
    }
}
