import Foundation
import RowCastKit
import Testing

/// A trickle of fire-and-forget ingest between paced commits: rowcastd leaves it unread until
/// shortly before the next commit is due and reads it as one batch (one round trip to the
/// plugin host, one delta), instead of one pass per message (`DurableEngine.ingestHeldUntil`).
@Suite(.serialized)
struct PacedIngestEndToEndTests {
    static func product(_ id: String) -> JSONValue {
        ["op": "upsert", "feed": "t", "item": ["id": .string(id), "type": "product", "data": [
            "name": .string("Car \(id)"), "operatedBy": "Tesla", "price": 1, "image": "https://img/p.png",
        ]]]
    }

    @Test("items pushed one by one within the commit interval come out in one delta, none lost",
          .timeLimit(.minutes(2)))
    func trickleReadAsOneBatch() throws {
        // 100 ms, the most allowed: the items below are pushed 3 ms apart, well inside it.
        let daemon = try DaemonProcess(extraArguments: ["--commit-interval-us", "100000"])
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("rows.t".utf8) + [0]])

        // The first is read and committed at once; the pacing counts from its commit.
        try peer.pushRaw(Self.product("first").serialized())
        _ = try peer.delta(feed: "t", seq: 1)

        let ids = (0..<10).map { "trickle-\($0)" }
        for id in ids {
            try peer.pushRaw(Self.product(id).serialized())
            Thread.sleep(forTimeInterval: 0.003)
        }
        var seen: [String] = []
        var deltas = 0
        while seen.count < ids.count {
            let delta = try peer.delta(feed: "t", seq: 2)
            deltas += 1
            for row in delta["rows"]?["inserted"]?.arrayValue ?? [] { if let id = row["id"]?.stringValue { seen.append(id) } }
            for section in delta["sections"]?["inserted"]?.arrayValue ?? [] {
                for row in section["rows"]?.arrayValue ?? [] { if let id = row["id"]?.stringValue { seen.append(id) } }
            }
        }
        #expect(seen.sorted() == ids.sorted())
        // Read one by one, ten items made ten deltas; a machine too slow to push them within
        // the interval may split them once or twice.
        #expect(deltas <= 3, "\(deltas) deltas for \(ids.count) items pushed within one commit interval")
        #expect(daemon.process.isRunning, "rowcastd died; log:\n\(daemon.log)")
    }
}
