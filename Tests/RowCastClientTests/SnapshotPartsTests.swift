import RowCastClient
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import RowCastTesting
import Testing

/// Snapshots in parts: the engine splits a snapshot into parts of about
/// `limits.max_message_bytes` (sections split between parts too), and `SnapshotAssembler`
/// joins them into exactly the snapshot asked for whole.
@Suite struct SnapshotPartsTests {
    typealias Cross = EngineCrossCheckTests

    /// The replies to one control request.
    private static func replies(_ engine: Engine, _ request: JSONValue) -> [JSONValue] {
        engine.process([IncomingMessage(origin: .control(replyTo: 1), body: request.serialized())]).replies.map {
            try! JSONParser.parse($0.body)
        }
    }

    /// An engine holding a feed of three sections of 40, 300 and 2 rows.
    private static func filledEngine() -> Engine {
        let engine = Engine(renderer: Cross.EchoRenderer())
        var token = 0
        var requests: [JSONValue] = [
            [
                "op": "section", "feed": "cars",
                "section": ["id": "top", "order": 0, "type": "banner", "header": ["title": "Top"]],
            ]
        ]
        for (section, count) in [("top", 40), ("middle", 300), ("end", 2)] {
            for index in 0..<count {
                requests.append([
                    "op": "upsert", "feed": "cars",
                    "item": [
                        "id": .string("\(section)-\(index)"), "type": "product", "section": .string(section),
                        "sort": .number(Double(index)), "data": ["title": .string("row \(index) of \(section)")],
                    ],
                ])
            }
        }
        _ = Cross.process(engine, requests, token: &token)
        return engine
    }

    @Test(
        "parts of any size join into the whole snapshot; each part stays near the limit",
        arguments: [1024, 1500, 4096, 20_000, 1 << 20])
    func partsJoin(limit: Int) throws {
        let engine = Self.filledEngine()
        let whole = try #require(Self.replies(engine, ["op": "snapshot", "feed": "cars", "req": 1]).first)
        #expect(whole["ok"] == true)
        engine.decoder.maximumMessageBytes = limit
        let parts = Self.replies(engine, ["op": "snapshot", "feed": "cars", "chunked": true, "req": 2])
        if limit < 20_000 { #expect(parts.count > 2) }
        var assembler = SnapshotAssembler()
        var joined: JSONValue?
        for (index, part) in parts.enumerated() {
            #expect(part["part"] == .number(Double(index)))
            #expect(part["parts"] == .number(Double(parts.count)))
            #expect(part["req"] == 2)
            #expect(part.serialized().count <= limit + 600, "part \(index) is \(part.serialized().count) bytes")
            #expect(joined == nil)
            joined = try assembler.add(part)
        }
        var expected = try #require(whole.objectValue)
        expected["req"] = 2
        #expect(joined == .object(expected))
        #expect(try FeedReplica(snapshot: #require(joined)).snapshotJSON == FeedReplica(snapshot: whole).snapshotJSON)
    }

    @Test(
        "a snapshot over the message limit asked for whole is refused with limit_exceeded; a feed that does not exist is one empty part"
    )
    func wholeRefused() throws {
        let engine = Self.filledEngine()
        engine.decoder.maximumMessageBytes = 4096
        let refused = Self.replies(engine, ["op": "snapshot", "feed": "cars", "req": 3])
        #expect(refused.count == 1)
        #expect(refused[0]["error"]?["code"] == "limit_exceeded")
        #expect(refused[0]["error"]?["limit"] == "limits.max_message_bytes")
        #expect(refused[0]["error"]?["message"]?.stringValue?.contains("\"chunked\":true") == true)
        let missing = Self.replies(engine, ["op": "snapshot", "feed": "nothing", "chunked": true])
        #expect(missing.count == 1)
        #expect(missing[0]["parts"] == 1)
        #expect(missing[0]["sections"] == [])
    }

    @Test("the assembler refuses parts out of order or of another seq")
    func assemblerChecks() throws {
        let engine = Self.filledEngine()
        engine.decoder.maximumMessageBytes = 4096
        let parts = Self.replies(engine, ["op": "snapshot", "feed": "cars", "chunked": true])
        var skipping = SnapshotAssembler()
        _ = try skipping.add(parts[0])
        #expect(throws: ReplicaError.self) { try skipping.add(parts[2]) }
        var mixed = SnapshotAssembler()
        _ = try mixed.add(parts[0])
        var other = try #require(parts[1].objectValue)
        other["seq"] = 999
        #expect(throws: ReplicaError.self) { try mixed.add(.object(other)) }
    }

    @Test("status lists feeds in pages within the message limit; `after` continues, and the pages add up to every feed")
    func statusPages() throws {
        let engine = Engine(renderer: Cross.EchoRenderer())
        var token = 0
        _ = Cross.process(
            engine,
            (0..<300).map {
                ["op": "upsert", "feed": .string("feed-\($0)"), "item": ["id": "1", "type": "product", "data": [:]]]
            }, token: &token)
        engine.decoder.maximumMessageBytes = 8192
        var names: [String] = []
        var request: JSONValue = ["op": "status"]
        var pages = 0
        while true {
            let reply = try #require(Self.replies(engine, request).first)
            #expect(reply["feedCount"] == 300)
            #expect(reply.serialized().count < 8192)
            names += reply["feeds"]?.arrayValue?.compactMap { $0["feed"]?.stringValue } ?? []
            pages += 1
            guard reply["more"] == true else { break }
            request = ["op": "status", "after": try #require(reply["next"])]
        }
        #expect(pages > 3)
        #expect(names == (0..<300).map { "feed-\($0)" }.sorted())
    }
}
