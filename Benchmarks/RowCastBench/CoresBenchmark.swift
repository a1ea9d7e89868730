import Foundation
import RowCastJSON
import ZeroMQ

/// Issue 39's `cores` figure: 64 feeds fed by 4 producers (PUSH over tcp loopback) into a real
/// release rowcastd with 1, 2, 4 and 8 engine threads (`--engine-threads`), one subscriber
/// counting every row: items/s and CPU per item (rowcastd's threads and its plugin hosts) for
/// each, rounds alternating the thread counts, beside the C PUSH→PULL→PUB→SUB chain.
struct CoresBenchmark {
    /// Items per run (`ROWCAST_BENCH_CORES_ITEMS`, default 200,000).
    var items = Int(ProcessInfo.processInfo.environment["ROWCAST_BENCH_CORES_ITEMS"] ?? "") ?? 200_000
    /// Engine threads to compare (`ROWCAST_BENCH_CORES_THREADS`, comma-separated, default 1,2,4,8).
    var threadCounts =
        (ProcessInfo.processInfo.environment["ROWCAST_BENCH_CORES_THREADS"] ?? "1,2,4,8").split(separator: ",")
        .compactMap { Int($0) }
    /// Rounds per thread count (`ROWCAST_BENCH_CORES_ROUNDS`, default 2); the best is kept.
    var rounds = Int(ProcessInfo.processInfo.environment["ROWCAST_BENCH_CORES_ROUNDS"] ?? "") ?? 2
    static let feeds = 64
    static let producers = 4
    var results = JSONObject()

    mutating func run() throws -> String {
        var table = BenchTable(
            title:
                "Cores: \(Self.feeds) feeds, \(Self.producers) producers, \(items.formatted) car items, engine threads compared (\(ProcessInfo.processInfo.activeProcessorCount) cores)",
            header: ["engine threads", "items/s (best)", "vs 1 thread", "vs C chain", "CPU per item (median)"])
        var cForward = Double.infinity
        for _ in 0..<2 { cForward = min(cForward, try CBaseline.seconds(.forward, items: items)) }
        let cRate = Double(items) / cForward
        var best: [Int: Double] = [:]
        var cpu: [Int: [Double]] = [:]
        var byThread: [Int: [String]] = [:]
        for round in 0..<rounds {
            let order = round.isMultiple(of: 2) ? threadCounts : threadCounts.reversed()
            for threads in order {
                let run = try Self.endToEnd(items: items, threads: threads, run: "c\(round)t\(threads)")
                best[threads] = max(best[threads] ?? 0, Double(items) / run.seconds)
                cpu[threads, default: []].append((run.daemonCPUSeconds + run.hostCPUSeconds) / Double(items) * 1e6)
                byThread[threads] = run.threads.filter { $0.seconds / Double(items) >= 0.05e-6 }.map {
                    "\($0.name) \(format3($0.seconds / Double(items) * 1e6)) µs"
                }
            }
        }
        var figures: [JSONValue] = []
        for threads in threadCounts {
            let rate = best[threads] ?? 0
            let perItem = (cpu[threads] ?? []).sorted()[(cpu[threads]?.count ?? 1) / 2]
            let one = best[threadCounts.first ?? 1] ?? rate
            table.add([
                "\(threads)", Int(rate).formatted, format3(rate / one), format3(rate / cRate), format3(perItem) + " µs",
            ])
            figures.append([
                "threads": .number(Double(threads)), "itemsPerSecond": .number(rate),
                "ratioToFirst": .number(rate / one), "ratioToCForward": .number(rate / cRate),
                "cpuMicrosecondsPerItem": .number(perItem),
            ])
        }
        table.footnotes.append("C PUSH→PULL→PUB→SUB chain: \(Int(cRate).formatted) items/s (best of 2)")
        for threads in threadCounts {
            table.footnotes.append(
                "CPU per item by thread, \(threads) engine threads (last round): "
                    + (byThread[threads] ?? []).joined(separator: ", "))
        }
        results["cForwardItemsPerSecond"] = .number(cRate)
        results["runs"] = .array(figures)
        return table.render()
    }

    /// One run: `items` upserts over the feeds, a quarter from each producer, into a rowcastd
    /// with `threads` engine threads; from the first send to the last row received.
    static func endToEnd(items: Int, threads: Int, run: String) throws -> EndToEndRun {
        let daemon = try BenchDaemon(extraArguments: ["--heartbeat-ms", "50", "--engine-threads", "\(threads)"])
        defer { daemon.stop() }
        let context = try Context()
        let subscriber = try BenchSubscriber.live(
            context: context, publish: daemon.publish, topics: [Array("rows.".utf8)], timeoutMilliseconds: 30_000)
        defer { subscriber.close() }
        let messages = (0..<items).map { CarFeed.upsert($0, run: run, feedCount: feeds) }
        let cpuBefore = ProcessCPU.sample(pid: daemon.process.processIdentifier)
        let hostsBefore = ProcessCPU.childrenSamples(pid: daemon.process.processIdentifier)
        let start = ContinuousClock.now
        for producer in 0..<producers {
            ThroughputBenchmark.startProducer(
                context: context, endpoint: daemon.ingest,
                messages: stride(from: producer, to: items, by: producers).map { messages[$0] })
        }
        var rows = 0
        while rows < items {
            guard let frames = try subscriber.receiveMultipart() else {
                throw BenchFailure("cores, \(threads) threads: stalled at \(rows) of \(items) rows")
            }
            if frames[0].starts(with: Array("rows.".utf8)) { rows += CarFeed.rowCount(in: frames[1]) }
        }
        let elapsed = ContinuousClock.now - start
        let cpuAfter = ProcessCPU.sample(pid: daemon.process.processIdentifier)
        let cpu = cpuAfter.since(cpuBefore)
        let hostsAfter = ProcessCPU.childrenSamples(pid: daemon.process.processIdentifier)
        let hostCPU = hostsAfter.reduce(0) { $0 + $1.value.processSeconds - (hostsBefore[$1.key]?.processSeconds ?? 0) }
        return EndToEndRun(
            seconds: elapsed.seconds, peakResident: daemon.peakResidentBytes, note: "\(threads) engine threads",
            daemonCPUSeconds: cpu.process, busiestThreadCPUSeconds: cpu.busiestThread, hostCPUSeconds: hostCPU,
            threads: cpuAfter.byThreadName(since: cpuBefore)
                + ProcessCPU.byThreadName(of: hostsAfter, since: hostsBefore, prefix: "host "))
    }
}
