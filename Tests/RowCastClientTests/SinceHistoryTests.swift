import RowCastClient
@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastJSON
import RowCastTesting
import Testing

/// `since` against the engine's delta history: a replica that stopped at any seq the history
/// covers resumes to exactly the engine's snapshot; past the history, or on another epoch, the
/// reply says a snapshot is needed; the history stays within its limits.
@Suite struct SinceHistoryTests {
    typealias Cross = EngineCrossCheckTests

    private static func reply(_ engine: Engine, _ request: JSONValue) -> JSONValue {
        let output = engine.process([IncomingMessage(origin: .control(replyTo: 1), body: request.serialized())])
        return try! JSONParser.parse(output.replies[0].body)
    }

    @Test(
        "random histories: a replica kept at an earlier seq resumes from since to the engine's snapshot, or is told it is gone",
        arguments: [1, 2, 3] as [UInt64])
    func resumeMatchesSnapshot(seed: UInt64) throws {
        let engine = Engine(renderer: Cross.EchoRenderer())
        engine.limits.historyDeltas = 40
        var random = SplitMix64(state: seed * 31337)
        var token = 0
        _ = Cross.process(
            engine, [["op": "upsert", "feed": "cars", "item": ["id": "seed", "type": "product", "data": [:]]]],
            token: &token)
        var kept: [FeedReplica] = [try FeedReplica(snapshot: Self.reply(engine, ["op": "snapshot", "feed": "cars"]))]
        var covered = 0
        for round in 0..<120 {
            _ = Cross.process(
                engine, (0..<Int.random(in: 1...4, using: &random)).map { _ in Cross.randomRequest(&random) },
                token: &token)
            if round % 7 == 0 {
                kept.append(try FeedReplica(snapshot: Self.reply(engine, ["op": "snapshot", "feed": "cars"])))
            }
            let replica = kept[Int.random(in: 0..<kept.count, using: &random)]
            let feed = try #require(engine.feeds["cars"])
            let answer = Self.reply(
                engine,
                [
                    "op": "since", "feed": "cars", "epoch": .string(replica.epoch ?? ""),
                    "seq": .number(Double(replica.seq)),
                ])
            #expect(answer["ok"] == true)
            #expect(answer["seq"] == .number(Double(feed.seq)))
            var resumed = replica
            if try resumed.resume(from: answer) {
                covered += 1
                let snapshot = try FeedReplica(snapshot: Self.reply(engine, ["op": "snapshot", "feed": "cars"]))
                #expect(
                    resumed.snapshotJSON == snapshot.snapshotJSON, "seed \(seed) round \(round) from seq \(replica.seq)"
                )
            } else {
                #expect(
                    UInt64(replica.seq) + 40 < feed.seq,
                    "seq \(replica.seq) of \(feed.seq) should be covered: \(answer)")
                #expect(answer["reason"]?.stringValue?.contains("is gone") == true, "\(answer)")
            }
        }
        #expect(covered > 20)
    }

    @Test(
        "another epoch, a feed that does not exist, or a seq ahead is not covered; history_bytes drops the oldest deltas of any feed first"
    )
    func notCoveredAndBounded() throws {
        let engine = Engine(renderer: Cross.EchoRenderer())
        var token = 0
        for index in 0..<10 {
            _ = Cross.process(
                engine,
                [
                    [
                        "op": "upsert", "feed": "old",
                        "item": ["id": .string("\(index)"), "type": "product", "data": ["n": .number(Double(index))]],
                    ]
                ], token: &token)
        }
        let epoch = try #require(engine.feeds["old"]?.epoch)
        #expect(
            Self.reply(engine, ["op": "since", "feed": "old", "epoch": .string(epoch), "seq": 7])["deltas"]?.arrayValue?
                .count == 3)
        #expect(Self.reply(engine, ["op": "since", "feed": "old", "epoch": .string(epoch), "seq": 10])["deltas"] == [])
        #expect(Self.reply(engine, ["op": "since", "feed": "old", "epoch": "other", "seq": 7])["covered"] == false)
        #expect(
            Self.reply(engine, ["op": "since", "feed": "old", "epoch": .string(epoch), "seq": 11])["covered"] == false)
        #expect(
            Self.reply(engine, ["op": "since", "feed": "none", "epoch": .string(epoch), "seq": 0])["covered"] == false)
        #expect(
            Self.reply(engine, ["op": "since", "feed": "old", "epoch": .string(epoch), "seq": -1])["error"]?["code"]
                == "invalid_field")

        // Room for about four deltas in all: the new feed's deltas push out the old feed's first.
        let perDelta = engine.historyBytes / 10
        engine.limits.historyBytes = perDelta * 4
        for index in 0..<3 {
            _ = Cross.process(
                engine,
                [
                    [
                        "op": "upsert", "feed": "new",
                        "item": ["id": .string("\(index)"), "type": "product", "data": ["n": .number(Double(index))]],
                    ]
                ], token: &token)
        }
        #expect(engine.historyBytes <= perDelta * 4 + perDelta / 2)
        #expect(engine.feeds["new"]?.history.count == 3)
        #expect((engine.feeds["old"]?.history.count ?? 0) <= 1)
        #expect(
            Self.reply(engine, ["op": "since", "feed": "old", "epoch": .string(epoch), "seq": 5])["covered"] == false)
    }
}
