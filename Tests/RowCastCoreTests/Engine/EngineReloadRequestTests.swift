import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import Testing

/// The `reload` op: decoded on the control socket only, and handed to the daemon unanswered.
struct EngineReloadRequestTests {
    @Test("reload decodes on control, is refused on ingest and refuses extra fields")
    func decoding() {
        let decoder = RequestDecoder()
        guard case .request(let request) = decoder.decode(Array(#"{"op":"reload","req":3}"#.utf8), from: .control),
            case .reload = request.operation
        else {
            Issue.record("reload did not decode on the control socket")
            return
        }
        #expect(request.req == RequestID(json: "3"))
        #expect(!request.isMutation)
        guard case .failure(let ingestError, _, _, _) = decoder.decode(Array(#"{"op":"reload"}"#.utf8), from: .ingest)
        else {
            Issue.record("reload was accepted on ingest")
            return
        }
        #expect(ingestError.code == .unknownOp)
        guard
            case .failure(let extraError, _, _, _) = decoder.decode(
                Array(#"{"op":"reload","feed":"cars"}"#.utf8), from: .control)
        else {
            Issue.record("reload accepted an unknown field")
            return
        }
        #expect(extraError.code == .invalidField)
        #expect(extraError.field == "feed")
    }

    @Test("the engine defers reload to the daemon and still answers the rest of the batch")
    func deferred() {
        let engine = Engine(renderer: FakeRenderer())
        let messages = [
            IncomingMessage(origin: .control(replyTo: 0), body: Array(#"{"op":"status","req":1}"#.utf8)),
            IncomingMessage(origin: .control(replyTo: 1), body: Array(#"{"op":"reload","req":2}"#.utf8)),
            IncomingMessage(origin: .control(replyTo: 2), body: Array(#"{"op":"plugins","req":3}"#.utf8)),
        ]
        let output = engine.process(messages)
        #expect(output.replies.map(\.token) == [0, 2])
        #expect(output.deferred.map(\.token) == [1])
        #expect(output.deferred.first?.request.req == RequestID(json: "2"))
    }
}
