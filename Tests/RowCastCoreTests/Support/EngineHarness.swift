import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON

/// Drives an `Engine` with JSON requests and decodes what comes out.
final class EngineHarness {
    let renderer: FakeRenderer
    let engine: Engine
    private var nextToken = 0

    init(renderer: FakeRenderer = FakeRenderer()) {
        self.renderer = renderer
        var epochs = 0
        engine = Engine(
            renderer: renderer,
            makeEpoch: {
                epochs += 1
                return "epoch-\(epochs)"
            })
    }

    struct Result {
        var replies: [JSONValue]
        var publications: [(topic: String, body: JSONValue)]

        var deltas: [JSONValue] { publications.filter { $0.topic.hasPrefix("rows.") }.map(\.body) }
        var errors: [JSONValue] { publications.filter { $0.topic.hasPrefix("errors") }.map(\.body) }
    }

    /// Sends one batch of control requests.
    func control(_ requests: [JSONValue]) -> Result {
        run(
            requests.map { request in
                nextToken += 1
                return IncomingMessage(origin: .control(replyTo: nextToken), body: request.serialized())
            })
    }

    /// Sends one control request.
    func control(_ request: JSONValue) -> Result { control([request]) }

    /// Sends raw bodies over ingest in one batch.
    func ingest(_ bodies: [[UInt8]]) -> Result {
        run(bodies.map { IncomingMessage(origin: .ingest, body: $0) })
    }

    func run(_ messages: [IncomingMessage]) -> Result {
        let output = engine.process(messages)
        return decode(publications: output.publications, replies: output.replies.map(\.body))
    }

    func decode(publications: [Publication], replies: [[UInt8]] = []) -> Result {
        Result(
            replies: replies.map { try! JSONParser.parse($0) },
            publications: publications.map { publication in
                precondition(expectTopicTerminated(publication.topic), "topic not NUL-terminated")
                let name = String(decoding: publication.topic.dropLast(), as: UTF8.self)
                return (name, try! JSONParser.parse(publication.body))
            })
    }

    /// The feed's snapshot reply.
    func snapshot(_ feed: String) -> JSONValue {
        control(["op": "snapshot", "feed": .string(feed)]).replies[0]
    }
}

/// Topic frames end with exactly one NUL byte.
func expectTopicTerminated(_ topic: [UInt8]) -> Bool {
    topic.last == 0 && !topic.dropLast().contains(0)
}

func item(
    _ id: String, type: String = "product", section: String? = nil, sort: Double? = nil,
    data: JSONObject = ["name": "x"]
) -> JSONValue {
    var object: JSONObject = ["id": .string(id), "type": .string(type)]
    if let section { object["section"] = .string(section) }
    if let sort { object["sort"] = .number(sort) }
    object["data"] = .object(data)
    return .object(object)
}

func upsert(_ feed: String, _ item: JSONValue, req: JSONValue? = nil) -> JSONValue {
    var object: JSONObject = ["op": "upsert", "feed": .string(feed), "item": item]
    if let req { object["req"] = req }
    return .object(object)
}
