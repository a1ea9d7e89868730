import RowCastEngine
import RowCastJSON
import RowCastStore
import Testing

/// A batch's receipt comes back on its output whatever becomes of the batch: the daemon sends
/// nothing without one (`Daemon.send`).
struct BatchReceiptTests {
    func receipt(_ tag: UInt8) -> BatchReceipt {
        BatchReceipt(receivedAt: .now, replyRoutes: [ReplyRoute(frames: [[tag], []])])
    }

    func request(_ id: String, req: Int) -> [IncomingMessage] {
        var object = upsert("f", item(id)).objectValue!
        object["client"] = "c"
        object["req"] = .number(Double(req))
        return [IncomingMessage(origin: .control(replyTo: 0), body: JSONValue.object(object).serialized())]
    }

    @Test("committed batches come back with their own receipts, in order")
    func committed() throws {
        let directory = try ScratchDirectory()
        let harness = EngineHarness()
        let durable = DurableEngine(
            engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try durable.start()
        _ = durable.submit(request("a", req: 1), receipt: receipt(1))
        _ = durable.submit(request("b", req: 2), receipt: receipt(2))
        let outputs = try durable.flush()
        #expect(outputs.map { $0.receipt?.replyRoutes.first?.frames } == [[[1], []], [[2], []]])
        #expect(outputs.allSatisfy { $0.replies.count == 1 })
        #expect(outputs[0].receipt?.replyRoutes[0].replyFrames([9]) == [[1], [], [9]])
        durable.close()
    }

    @Test("the refusals of a failed commit keep the receipts of the batches they refuse")
    func refused() throws {
        let directory = try ScratchDirectory()
        let harness = EngineHarness()
        let store = FlakyStore(try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        let durable = DurableEngine(engine: harness.engine, store: store)
        _ = try durable.start()
        store.failingCommits = 1
        _ = durable.submit(request("a", req: 1), receipt: receipt(1))
        _ = durable.submit(request("b", req: 2), receipt: receipt(2))
        let outputs = try durable.flush()
        #expect(outputs.count == 2)
        #expect(outputs.map { $0.receipt?.replyRoutes.first?.frames } == [[[1], []], [[2], []]])
        #expect(outputs.allSatisfy { $0.publications.isEmpty && $0.replies.count == 1 })
        #expect(outputs.allSatisfy { String(decoding: $0.replies[0].body, as: UTF8.self).contains("storage_error") })
        durable.close()
    }
}
