import RowCastClient
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import RowCastTesting
import Testing

/// The daemon's engine and the client's replica are two independent readings of PROTOCOL.md:
/// every delta the engine publishes, applied by `FeedReplica`, must give exactly the engine's
/// next snapshot, byte for byte in the replica shape.
@Suite struct EngineCrossCheckTests {
    /// Renders every item into a row echoing its data; `data.cell` picks the cell, so a change
    /// of it is a reload. Section type `banner` gets a header row.
    final class EchoRenderer: RowRendering {
        func renderItem(type: String, input: [UInt8]) -> RenderOutcome {
            guard let data = (try? JSONParser.parse(input))?["data"]?.objectValue else {
                return .failed(message: "bad input")
            }
            let row: JSONValue = [
                "cell": .string(data["cell"]?.stringValue ?? "Cell"), "height": 44,
                "content": .object(data), "actions": [],
            ]
            return .ok(row.serialized())
        }

        func renderHeader(type: String, input: [UInt8]) -> RenderOutcome {
            guard type == "banner", let section = try? JSONParser.parse(input) else { return .noRenderer }
            let row: JSONValue = ["cell": "Header", "height": 30, "content": section["header"] ?? .null]
            return .ok(row.serialized())
        }

        func select(type: String, input: [UInt8]) -> RenderOutcome { .noRenderer }
        func rendererIdentity(forItemType type: String) -> String? { "echo" }
        func rendererIdentity(forHeaderType type: String) -> String? { type == "banner" ? "echo" : nil }
        func pluginsDescription() -> JSONObject { ["plugins": [], "types": [:], "refusals": []] }
        var pluginCount: Int { 1 }
    }

    /// Runs `requests` through the engine as one batch; returns the deltas published.
    static func process(_ engine: Engine, _ requests: [JSONValue], token: inout Int) -> [JSONValue] {
        let messages = requests.map { request -> IncomingMessage in
            token += 1
            return IncomingMessage(origin: .control(replyTo: token), body: request.serialized())
        }
        return engine.process(messages).publications
            .filter { $0.topic.starts(with: Array("rows.".utf8)) }
            .compactMap { try? JSONParser.parse($0.body) }
    }

    /// A random feed operation on a small id space, so inserts, replacements, moves and
    /// deletes all happen often.
    static func randomRequest(_ random: inout SplitMix64) -> JSONValue {
        let sections = ["s0", "s1", "s2", "s3"]
        let id = "i\(Int.random(in: 0..<24, using: &random))"
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<55:
            let data: JSONObject = [
                "title": .string("t\(Int.random(in: 0..<3, using: &random))"),
                "cell": .string(Bool.random(using: &random) ? "Cell" : "BigCell"),
            ]
            return [
                "op": "upsert", "feed": "cars",
                "item": [
                    "id": .string(id), "type": "product", "section": .string(sections.randomElement(using: &random)!),
                    "sort": .number(Double(Int.random(in: 0..<4, using: &random))), "data": .object(data),
                ],
            ]
        case 55..<75:
            return ["op": "delete", "feed": "cars", "id": .string(id)]
        case 75..<85:
            let section = sections.randomElement(using: &random)!
            return [
                "op": "section", "feed": "cars",
                "section": [
                    "id": .string(section), "order": .number(Double(Int.random(in: 0..<3, using: &random))),
                    "type": Bool.random(using: &random) ? "banner" : "plain",
                    "header": ["title": .string("h\(Int.random(in: 0..<2, using: &random))")],
                ],
            ]
        case 85..<93:
            return ["op": "delete_section", "feed": "cars", "id": .string(sections.randomElement(using: &random)!)]
        default:
            let items: [JSONValue] = (0..<Int.random(in: 0..<8, using: &random)).map { _ in
                [
                    "id": .string("i\(Int.random(in: 0..<24, using: &random))"), "type": "product",
                    "section": .string(sections.randomElement(using: &random)!), "data": ["title": "r"],
                ]
            }
            return ["op": "reset", "feed": "cars", "items": .array(items)]
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func replicaFollowsTheEngineThroughRandomBatches(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let engine = Engine(renderer: EchoRenderer())
        var token = 0
        let snapshot = { () -> JSONValue in
            token += 1
            let reply = engine.process([
                IncomingMessage(
                    origin: .control(replyTo: token), body: RowCastRequest.snapshot(feed: "cars").serialized())
            ]).replies[0]
            return try! JSONParser.parse(reply.body)
        }
        var replica = try FeedReplica(snapshot: snapshot())
        #expect(replica.seq == 0 && replica.epoch == nil)
        var applied = 0
        for _ in 0..<150 {
            let batch = (0..<Int.random(in: 1...4, using: &random)).map { _ in Self.randomRequest(&random) }
            for delta in Self.process(engine, batch, token: &token) {
                #expect(try replica.apply(delta: delta) == .applied, "seed \(seed): \(delta)")
                applied += 1
            }
            let expected = try FeedReplica(snapshot: snapshot()).snapshotJSON
            #expect(replica.snapshotJSON.description == expected.description, "seed \(seed) after seq \(replica.seq)")
            if replica.snapshotJSON != expected { return }
        }
        #expect(applied > 50)
    }
}
