import Foundation
import RowCastClient
import RowCastJSON
import ZeroMQ

/// Issue 4's figures: acked publishing through `AckedPublisher` with a window of 1, 16 and
/// 256 requests in flight, beside unacked PUSH, against a release rowcastd with its store on,
/// at each durability level. Every acked item is committed to SQLite before its ack leaves.
struct AckedBenchmark {
    /// Items per run, by window (fewer for a window of 1: one commit per item).
    var items: [Int: Int] = [1: 3_000, 16: 30_000, 256: 100_000]
    /// Items for the unacked PUSH run.
    var pushedItems = 200_000
    /// The durability levels measured.
    var durabilities = ["normal", "full"]
    var results = JSONObject()

    mutating func run() throws -> String {
        var table = BenchTable(
            title: "Acked vs unacked ingest: car feed items (~250 bytes), tcp loopback, store on (SQLite WAL)",
            header: ["durability", "path", "items", "seconds", "items/s"])
        for durability in durabilities {
            var figures = JSONObject()
            for window in items.keys.sorted() {
                let count = durability == "full" && window == 1 ? min(items[window]!, 1_000) : items[window]!
                let seconds = try Self.acked(items: count, window: window, durability: durability)
                table.add([
                    durability, "acked, window \(window)", count.formatted, format3(seconds),
                    Int(Double(count) / seconds).formatted,
                ])
                figures["window\(window)"] = [
                    "items": .number(Double(count)), "seconds": .number(seconds),
                    "itemsPerSecond": .number(Double(count) / seconds),
                ]
            }
            let seconds = try Self.pushed(items: pushedItems, durability: durability)
            table.add([
                durability, "unacked PUSH (at most once)", pushedItems.formatted, format3(seconds),
                Int(Double(pushedItems) / seconds).formatted,
            ])
            figures["push"] = [
                "items": .number(Double(pushedItems)), "seconds": .number(seconds),
                "itemsPerSecond": .number(Double(pushedItems) / seconds),
            ]
            results[durability] = .object(figures)
        }
        return table.render() + """
            normal: WAL, synchronous=NORMAL; an ack means committed: it survives a crash of rowcastd, power loss may undo the last commits.
            full:   WAL, synchronous=FULL; the WAL is synced before acks leave: acks also survive power loss.
            Unacked PUSH: timed from the first send to the last row received by a subscriber.

            """
    }

    /// Seconds to publish `items` upserts with acks, `window` in flight, until the last ack.
    static func acked(items: Int, window: Int, durability: String) throws -> Double {
        let daemon = try BenchDaemon(durability: durability)
        defer { daemon.stop() }
        let requests = (0..<items).map { try! JSONParser.parse(CarFeed.upsert($0, run: "acked")) }
        let publisher = try AckedPublisher(
            endpoint: daemon.control,
            options: AckedPublisherOptions(window: window, retryTimeout: .seconds(30), timeout: .seconds(120)))
        defer { publisher.close() }
        // One warm-up request: the connection is made and the feeds exist.
        _ = publisher.publish([try JSONParser.parse(CarFeed.upsert(0, run: "warm-up"))])
        let start = ContinuousClock.now
        var failures = 0
        for request in requests {
            try publisher.submit(request)
            failures += publisher.takeResults().filter { if case .failure = $0.result { true } else { false } }.count
        }
        try publisher.flush()
        failures += publisher.takeResults().filter { if case .failure = $0.result { true } else { false } }.count
        let elapsed = ContinuousClock.now - start
        guard failures == 0 else {
            throw BenchFailure("acked, window \(window): \(failures) of \(items) requests failed")
        }
        return elapsed.seconds
    }

    /// Seconds from the first PUSH of `items` upserts to the last row received.
    static func pushed(items: Int, durability: String) throws -> Double {
        try ThroughputBenchmark.endToEnd(items: items, durability: durability, run: "push").seconds
    }
}
