import Foundation
import Histogram
import RowCastJSON
import ZeroMQ

/// Issue 6's latency figure: items pushed into a real rowcastd at a fixed offered load, and
/// the time from each item's scheduled send to its row arriving at a subscriber, as an
/// HdrHistogram. Measuring from the schedule (not from when the producer got round to it)
/// keeps a stalled producer from hiding latency (no coordinated omission).
///
/// Then the floor: the same producer and subscriber through the C relay
/// (`rowcast-zmq-baseline relay`, PULL → PUB and nothing else), which is what the machine, the
/// sockets and the benchmark's own threads cost at that load without rowcastd.
///
/// Beside rowcastd's percentiles, its CPU per item at that rate (all its threads and its
/// plugin hosts, its loop threads, and by thread name): at 1,000 and 10,000 items/s a batch holds
/// one or a few items, so this is the cost of a trickle (wake-ups, system calls, a commit per few
/// items), which the `throughput` figure, of full batches, does not show.
///
/// By default it runs at 1,000, 10,000 and 50,000 items/s, each with a fresh rowcastd and then
/// its floor, 5 s each (about 35 s in all).
struct LatencyBenchmark {
    /// Items per second offered, one run each: 1,000, 10,000 and 50,000, or
    /// `ROWCAST_BENCH_LATENCY_RATE` (one rate, or several separated by commas).
    var rates =
        (ProcessInfo.processInfo.environment["ROWCAST_BENCH_LATENCY_RATE"] ?? "").split(separator: ",").compactMap {
            Int($0.trimmingCharacters(in: .whitespaces)).map { max(1, $0) }
        }.nonEmpty ?? [1_000, 10_000, 50_000]
    var seconds = 5
    /// The figures of each rate, in `rates` order (`rates` in bench-results.json).
    var results = JSONObject()
    /// Whether to measure the floor through the C relay too (the isolation workload does not).
    var measuresFloor = true
    /// Extra rowcastd arguments: the isolation workload sets them; for a lone `latency` run,
    /// `ROWCAST_BENCH_DAEMON_ARGS` (split at spaces), e.g. `--plugin-isolation in_process`.
    var daemonArguments = (ProcessInfo.processInfo.environment["ROWCAST_BENCH_DAEMON_ARGS"] ?? "").split(separator: " ")
        .map(String.init)

    /// The topic the rows (and the relay's copies) are published on.
    static let topic = Array("rows.lat".utf8) + [0]

    /// The figures of the first rate (the isolation workload runs one).
    var first: JSONObject { results["rates"]?.arrayValue?.first?.objectValue ?? [:] }

    mutating func run() throws -> String {
        var table = BenchTable(
            title: "Latency: publish to row at a subscriber, each rate offered for \(seconds) s",
            header: ["rate", "path", "p50", "p99", "p99.9", "max", "CPU per item (loop)"])
        var figures: [JSONValue] = []
        for rate in rates {
            let (daemonHistogram, cpu) = try measureDaemon(rate: rate)
            let items = Double(rate * seconds)
            let perItem = { (seconds: Double) in format3(seconds / items * 1e6) + " µs" }
            table.add(
                ["\(rate.formatted)/s", "rowcastd"] + Self.columns(daemonHistogram) + [
                    perItem(cpu.all) + " (" + format3(cpu.loop / items * 1e6) + ")"
                ])
            var result = Self.figures(daemonHistogram)
            result["rate"] = .number(Double(rate))
            result["items"] = .number(items)
            result["cpuMicrosecondsPerItem"] = .number(cpu.all / items * 1e6)
            result["loopMicrosecondsPerItem"] = .number(cpu.loop / items * 1e6)
            var threads = JSONObject()
            for thread in cpu.threads { threads[thread.name] = .number(thread.seconds / items * 1e6) }
            result["threadMicrosecondsPerItem"] = .object(threads)
            table.footnotes.append(
                "\(rate.formatted)/s, rowcastd CPU per item by thread (its hosts' threads summed by name): "
                    + cpu.threads.filter { $0.seconds / items >= 0.5e-6 }.map {
                        "\($0.name) \(perItem($0.seconds)) (\(perItem($0.systemSeconds)) in the kernel)"
                    }.joined(separator: ", "))
            if measuresFloor {
                let floor = try measureRelay(rate: rate)
                table.add(["", "C relay (floor)"] + Self.columns(floor) + [""])
                result["floor"] = .object(Self.figures(floor))
            }
            figures.append(.object(result))
        }
        results["rates"] = .array(figures)
        return table.render()
    }

    /// The latency through a real rowcastd at `rate` (its rows' inserted ids), and the CPU
    /// seconds rowcastd and its hosts used meanwhile (`all`), its loop threads, and by thread name.
    private func measureDaemon(
        rate: Int
    ) throws -> (Histogram<UInt64>, cpu: (all: Double, loop: Double, threads: [ThreadCPU])) {
        let daemon = try BenchDaemon(extraArguments: ["--heartbeat-ms", "50"] + daemonArguments)
        defer { daemon.stop() }
        let context = try Context()
        let subscriber = try BenchSubscriber.live(
            context: context, publish: daemon.publish, topics: [Self.topic], timeoutMilliseconds: 10_000)
        let pid = daemon.process.processIdentifier
        let before = ProcessCPU.sample(pid: pid)
        let hostsBefore = ProcessCPU.childrenSamples(pid: pid)
        let histogram = try measure(
            rate: rate, context: context, ingest: daemon.ingest, subscriber: subscriber, ids: Self.insertedIDs)
        let after = ProcessCPU.sample(pid: pid)
        let hostsAfter = ProcessCPU.childrenSamples(pid: pid)
        let hosts = hostsAfter.reduce(0.0) { $0 + $1.value.processSeconds - (hostsBefore[$1.key]?.processSeconds ?? 0) }
        let threads = after.byThreadName(since: before)
        // `rowcastd-loop`, or `rowcastd-loop-N` with several engine threads.
        let loop = threads.filter { $0.name.hasPrefix("rowcastd-loop") }.reduce(0.0) { $0 + $1.seconds }
        let all = threads + ProcessCPU.byThreadName(of: hostsAfter, since: hostsBefore, prefix: "host ")
        return (histogram, (after.since(before).process + hosts, loop, all.sorted { $0.seconds > $1.seconds }))
    }

    /// The latency through the C relay at `rate` (the forwarded upserts' item ids).
    private func measureRelay(rate: Int) throws -> Histogram<UInt64> {
        let relay = Process()
        relay.executableURL = URL(fileURLWithPath: BenchDaemon.productsDirectory + "/rowcast-zmq-baseline")
        relay.arguments = ["relay", "rows.lat"]
        let output = Pipe()
        relay.standardOutput = output
        try relay.run()
        defer {
            relay.terminate()
            relay.waitUntilExit()
        }
        let line = String(decoding: output.fileHandleForReading.availableLine(), as: UTF8.self)
        let endpoints = line.split(separator: " ").map(String.init)
        guard endpoints.count == 2 else {
            throw BenchFailure("rowcast-zmq-baseline relay printed \"\(line)\", not two endpoints")
        }
        let context = try Context()
        let subscriber = try Socket(context: context, type: .sub)
        try subscriber.setOption(.linger, 0)
        try subscriber.setOption(.receiveHighWaterMark, 0)
        try subscriber.setOption(.receiveTimeout, 10_000)
        try subscriber.subscribe(Self.topic)
        try subscriber.connect(endpoints[1])
        // The slow joiner: warm-ups through the relay until one arrives, then the rest drained.
        let warm = try Socket(context: context, type: .push)
        try warm.setOption(.linger, 0)
        try warm.connect(endpoints[0])
        try subscriber.setOption(.receiveTimeout, 10)
        var joined = false
        for _ in 0..<1000 where !joined {
            _ = try warm.send(Array(#"{"item":{"id":"warm-up"}}"#.utf8))
            joined = try subscriber.receiveMultipart() != nil
        }
        guard joined else { throw BenchFailure("the C relay forwarded nothing in 10 s") }
        while try subscriber.receiveMultipart() != nil {}
        warm.close()
        try subscriber.setOption(.receiveTimeout, 10_000)
        return try measure(
            rate: rate, context: context, ingest: endpoints[0], subscriber: subscriber, ids: Self.forwardedIDs)
    }

    /// Sends `rate * seconds` upserts to `ingest`, each at its due time, and records for each
    /// id `ids` finds in what `subscriber` receives the time since that item was due.
    private func measure(
        rate: Int, context: Context, ingest endpoint: String, subscriber: Socket,
        ids: @escaping ([UInt8]) throws -> [String]
    ) throws -> Histogram<UInt64> {
        let total = rate * seconds
        let interval = 1.0 / Double(rate)
        let messages = (0..<total).map { index in
            Array(
                #"{"op":"upsert","feed":"lat","item":{"id":"L\#(index)","type":"product","section":"s\#(index % 3)","data":{"name":"Tesla Model 3 Long Range \#(index)","operatedBy":"Tesla Inc.","price":\#(30000 + index % 20000),"image":"https://img.example/cars/\#(index % 997).png"}}}"#
                    .utf8)
        }
        let start = ContinuousClock.now.advanced(by: .milliseconds(100))
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
            guard let frames = try subscriber.receiveMultipart() else {
                throw BenchFailure("latency: stalled at \(received) of \(total)")
            }
            guard frames.count == 2, frames[0] == Self.topic else { continue }
            let arrived = ContinuousClock.now
            for id in try ids(frames[1]) {
                guard id.hasPrefix("L"), let index = Int(id.dropFirst()) else { continue }
                let scheduled = start.advanced(by: .nanoseconds(Int64(Double(index) * interval * 1e9)))
                let micros = max(0, (arrived - scheduled).seconds * 1e6)
                _ = histogram.record(UInt64(micros))
                received += 1
            }
        }
        return histogram
    }

    /// p50, p99, p99.9 and the maximum of `histogram` (microseconds) in milliseconds, as table cells.
    private static func columns(_ histogram: Histogram<UInt64>) -> [String] {
        [50.0, 99.0, 99.9].map { format3(Double(histogram.valueAtPercentile($0)) / 1000) + " ms" } + [
            format3(Double(histogram.max) / 1000) + " ms"
        ]
    }

    /// The same figures for bench-results.json.
    private static func figures(_ histogram: Histogram<UInt64>) -> JSONObject {
        [
            "p50Milliseconds": .number(Double(histogram.valueAtPercentile(50)) / 1000),
            "p99Milliseconds": .number(Double(histogram.valueAtPercentile(99)) / 1000),
            "p999Milliseconds": .number(Double(histogram.valueAtPercentile(99.9)) / 1000),
            "maxMilliseconds": .number(Double(histogram.max) / 1000),
        ]
    }

    /// The ids of the rows a delta inserts (directly or inside inserted sections).
    static func insertedIDs(_ body: [UInt8]) throws -> [String] {
        let delta = try JSONParser.parse(body)
        var ids: [String] = []
        for entry in delta["rows"]?["inserted"]?.arrayValue ?? [] {
            if let id = entry["id"]?.stringValue { ids.append(id) }
        }
        for section in delta["sections"]?["inserted"]?.arrayValue ?? [] {
            for row in section["rows"]?.arrayValue ?? [] { if let id = row["id"]?.stringValue { ids.append(id) } }
        }
        return ids
    }

    /// The item id of an upsert the relay forwarded as it was sent.
    static func forwardedIDs(_ body: [UInt8]) throws -> [String] {
        try JSONParser.parse(body)["item"]?["id"]?.stringValue.map { [$0] } ?? []
    }
}

extension Array {
    /// Nil when empty.
    fileprivate var nonEmpty: Self? { isEmpty ? nil : self }
}
