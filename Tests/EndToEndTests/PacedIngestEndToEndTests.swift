import Foundation
import RowCastJSON
import Testing

/// A trickle of fire-and-forget ingest between paced commits: rowcastd leaves it unread until
/// shortly before the next commit is due and reads it as one batch (one round trip to the
/// plugin host, one delta), instead of one pass per message (`DurableEngine.ingestHeldUntil`).
@Suite(.serialized)
struct PacedIngestEndToEndTests {
    static func product(_ id: String) -> JSONValue {
        [
            "op": "upsert", "feed": "t",
            "item": [
                "id": .string(id), "type": "product",
                "data": [
                    "name": .string("Car \(id)"), "operatedBy": "Tesla", "price": 1, "image": "https://img/p.png",
                ],
            ],
        ]
    }

    @Test(
        "a steady trickle is read a commit interval's worth at a time, none lost",
        .timeLimit(.minutes(2)))
    func trickleReadInBatches() throws {
        // 100 ms, the most allowed; items pushed 3 ms apart, about 33 in an interval.
        let daemon = try DaemonProcess(extraArguments: ["--commit-interval-us", "100000"])
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("rows.t".utf8) + [0]])

        // The first commits of a trickle carry one message each until the pacing gathers more;
        // from the first commit of several on, ingest waits for the next commit to be nearly
        // due. So count only the deltas of the second half.
        let ids = (0..<60).map { "trickle-\($0)" }
        for id in ids {
            try peer.pushRaw(Self.product(id).serialized())
            Thread.sleep(forTimeInterval: 0.003)
        }
        let secondHalf = Set(ids[30...])
        var seen: Set<String> = []
        var deltasOfSecondHalf = 0
        while !seen.isSuperset(of: ids) {
            let delta = try peer.delta(feed: "t", seq: 1)
            var rows: [String] = []
            for row in delta["rows"]?["inserted"]?.arrayValue ?? [] {
                if let id = row["id"]?.stringValue { rows.append(id) }
            }
            for section in delta["sections"]?["inserted"]?.arrayValue ?? [] {
                for row in section["rows"]?.arrayValue ?? [] { if let id = row["id"]?.stringValue { rows.append(id) } }
            }
            if rows.contains(where: secondHalf.contains) { deltasOfSecondHalf += 1 }
            seen.formUnion(rows)
        }
        #expect(seen == Set(ids))
        // Read one by one, the second half made 30 deltas; held, a few (a machine too slow
        // to push them within an interval or two gets a few more).
        #expect(
            deltasOfSecondHalf <= 10, "\(deltasOfSecondHalf) deltas for the last 30 of a trickle of 60 items 3 ms apart"
        )
        #expect(daemon.process.isRunning, "rowcastd died; log:\n\(daemon.log)")
    }
}
