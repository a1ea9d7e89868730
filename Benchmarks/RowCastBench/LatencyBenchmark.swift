import Foundation
import Histogram
import RowCastKit
import ZeroMQ

/// Issue 6's latency figure: items pushed into a real rowcastd at a fixed offered load, and
/// the time from each item's scheduled send to its row arriving at a subscriber, as an
/// HdrHistogram. Measuring from the schedule (not from when the producer got round to it)
/// keeps a stalled producer from hiding latency (no coordinated omission).
struct LatencyBenchmark {
    var rate = 10_000
    var seconds = 5
    var results = JSONObject()
    /// Extra rowcastd arguments: the isolation workload sets them; for a lone `latency` run,
    /// `ROWCAST_BENCH_DAEMON_ARGS` (split at spaces), e.g. `--plugin-isolation in_process`.
    var daemonArguments = (ProcessInfo.processInfo.environment["ROWCAST_BENCH_DAEMON_ARGS"] ?? "").split(separator: " ").map(String.init)

    mutating func run() throws -> String {
        let daemon = try BenchDaemon(extraArguments: ["--heartbeat-ms", "50"] + daemonArguments)
        defer { daemon.stop() }
        let context = try Context()
        let subscriber = try BenchSubscriber.live(context: context, publish: daemon.publish, topics: [Array("rows.lat".utf8) + [0]], timeoutMilliseconds: 10_000)

        let total = rate * seconds
        let interval = 1.0 / Double(rate)
        let messages = (0..<total).map { index in
            Array(#"{"op":"upsert","feed":"lat","item":{"id":"L\#(index)","type":"product","section":"s\#(index % 3)","data":{"name":"Tesla Model 3 Long Range \#(index)","operatedBy":"Tesla Inc.","price":\#(30000 + index % 20000),"image":"https://img.example/cars/\#(index % 997).png"}}}"#.utf8)
        }
        let start = ContinuousClock.now.advanced(by: .milliseconds(100))
        let endpoint = daemon.ingest
        Thread {
            do {
                let producer = try Socket(context: context, type: .push)
                try producer.setOption(.linger, -1)  // wait for delivery before the thread ends
                try producer.setOption(.sendHighWaterMark, 0)
                try producer.connect(endpoint)
                // Open loop: each item is sent when it is due (sleeping until then), or at once
                // when the producer is behind.
                var next = 0
                while next < total {
                    let due = Int((ContinuousClock.now - start).seconds / interval) + 1
                    while next < min(due, total) {
                        _ = try producer.send(messages[next])
                        next += 1
                    }
                    let wait = Double(next) * interval - (ContinuousClock.now - start).seconds
                    if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                }
                producer.close()
            } catch {
                print("latency producer: \(error)")
            }
        }.start()

        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        var received = 0
        while received < total {
            guard let frames = try subscriber.receiveMultipart() else { throw BenchFailure("latency: stalled at \(received) of \(total)") }
            guard frames[0].first == UInt8(ascii: "r") else { continue }
            let arrived = ContinuousClock.now
            for id in try Self.insertedIDs(frames[1]) {
                guard id.hasPrefix("L"), let index = Int(id.dropFirst()) else { continue }
                let scheduled = start.advanced(by: .nanoseconds(Int64(Double(index) * interval * 1e9)))
                let micros = max(0, (arrived - scheduled).seconds * 1e6)
                _ = histogram.record(UInt64(micros))
                received += 1
            }
        }
        func percentile(_ value: Double) -> Double { Double(histogram.valueAtPercentile(value)) / 1000 }
        var table = BenchTable(title: "Latency: publish to row at a subscriber, \(rate.formatted) items/s offered for \(seconds) s (\(total.formatted) items)",
                               header: ["p50", "p99", "p99.9", "max"])
        table.add([format3(percentile(50)) + " ms", format3(percentile(99)) + " ms", format3(percentile(99.9)) + " ms", format3(Double(histogram.max) / 1000) + " ms"])
        results = ["rate": .number(Double(rate)), "items": .number(Double(total)),
                   "p50Milliseconds": .number(percentile(50)), "p99Milliseconds": .number(percentile(99)),
                   "p999Milliseconds": .number(percentile(99.9)), "maxMilliseconds": .number(Double(histogram.max) / 1000)]
        return table.render()
    }

    /// The ids of the rows a delta inserts (directly or inside inserted sections).
    static func insertedIDs(_ body: [UInt8]) throws -> [String] {
        let delta = try JSONParser.parse(body)
        var ids: [String] = []
        for entry in delta["rows"]?["inserted"]?.arrayValue ?? [] { if let id = entry["id"]?.stringValue { ids.append(id) } }
        for section in delta["sections"]?["inserted"]?.arrayValue ?? [] {
            for row in section["rows"]?.arrayValue ?? [] { if let id = row["id"]?.stringValue { ids.append(id) } }
        }
        return ids
    }
}
