import Foundation
import RowCastJSON
import ZeroMQ

/// Issue 6's throughput figures, measured on the same machine and the same messages in one run:
/// - baselines: raw ZeroMQ in C (`rowcast-zmq-baseline`: PUSH → PULL, and PUSH → PULL → PUB →
///   SUB) and the same forwarding through our Swift wrapper, no parsing; best of two rounds,
///   alternating;
/// - end to end: PUSH into a real release rowcastd with the real plugins, one subscriber
///   counting the rows it receives; from the first send to the last row received.
struct ThroughputBenchmark {
    var baselineItems = 500_000
    /// Items of the end-to-end run (`ROWCAST_BENCH_THROUGHPUT_ITEMS`, default 200,000).
    var endToEndItems = Int(ProcessInfo.processInfo.environment["ROWCAST_BENCH_THROUGHPUT_ITEMS"] ?? "") ?? 200_000
    var results = JSONObject()

    mutating func run() throws -> String {
        var table = BenchTable(
            title: "Throughput: car feed items (~250 bytes), PUSH over tcp loopback, one subscriber",
            header: ["path", "items", "seconds", "items/s", "vs C forward"])
        var cOneHop = Double.infinity, cForward = Double.infinity, baseline = Double.infinity
        for _ in 0..<2 {
            cOneHop = min(cOneHop, try CBaseline.seconds(.oneHop, items: baselineItems))
            cForward = min(cForward, try CBaseline.seconds(.forward, items: baselineItems))
            baseline = min(baseline, try Self.baseline(items: baselineItems))
        }
        let cForwardRate = Double(baselineItems) / cForward, cOneHopRate = Double(baselineItems) / cOneHop
        table.add([
            "raw ZeroMQ in C, PUSH→PULL", baselineItems.formatted, format3(cOneHop), Int(cOneHopRate).formatted,
            format3(cOneHopRate / cForwardRate),
        ])
        table.add([
            "raw ZeroMQ in C, PUSH→PULL→PUB→SUB", baselineItems.formatted, format3(cForward),
            Int(cForwardRate).formatted, "1.00",
        ])
        let baselineRate = Double(baselineItems) / baseline
        table.add([
            "the same through our Swift wrapper", baselineItems.formatted, format3(baseline),
            Int(baselineRate).formatted, format3(baselineRate / cForwardRate),
        ])
        let endToEnd = try Self.endToEnd(items: endToEndItems)
        let rate = Double(endToEndItems) / endToEnd.seconds
        table.add([
            "rowcastd end to end (" + endToEnd.note + ")", endToEndItems.formatted, format3(endToEnd.seconds),
            Int(rate).formatted, format3(rate / cForwardRate),
        ])
        table.footnotes.append(
            "rowcastd end to end against the C one-hop PUSH→PULL: \(format3(rate / cOneHopRate)); against the Swift-wrapper forwarding: \(format3(rate / baselineRate))"
        )
        let items = Double(endToEndItems)
        let perItem = { (seconds: Double) in format3(seconds / items * 1e6) + " µs" }
        table.footnotes.append(
            "rowcastd CPU per item: \(perItem(endToEnd.daemonCPUSeconds + endToEnd.hostCPUSeconds)) over all its threads and its plugin hosts (\(perItem(endToEnd.daemonCPUSeconds)) in rowcastd, \(perItem(endToEnd.hostCPUSeconds)) in the hosts), \(perItem(endToEnd.busiestThreadCPUSeconds)) in its busiest thread (the loop)"
        )
        let shares = endToEnd.threads.filter { $0.seconds / items >= 0.05e-6 }.map {
            "\($0.name) \(perItem($0.seconds)) (\(perItem($0.systemSeconds)) of it in the kernel)"
        }
        table.footnotes.append(
            "rowcastd CPU per item by thread (its hosts' threads summed by name): " + shares.joined(separator: ", "))
        // The same items published again with another price: the feed no longer grows.
        let updates = try Self.endToEnd(items: endToEndItems, run: "upd", updates: true)
        let updateRate = items / updates.seconds
        table.add([
            "rowcastd end to end, the same items updated (" + updates.note + ")", endToEndItems.formatted,
            format3(updates.seconds), Int(updateRate).formatted, format3(updateRate / cForwardRate),
        ])
        table.footnotes.append(
            "rowcastd CPU per item, updates of existing items: \(perItem(updates.daemonCPUSeconds + updates.hostCPUSeconds)) over all its threads and its plugin hosts, \(perItem(updates.busiestThreadCPUSeconds)) in its busiest thread; by thread: "
                + updates.threads.filter { $0.seconds / items >= 0.05e-6 }.map {
                    "\($0.name) \(perItem($0.seconds)) (\(perItem($0.systemSeconds)) in the kernel)"
                }.joined(separator: ", "))
        results["baseline"] = [
            "items": .number(Double(baselineItems)), "seconds": .number(baseline),
            "itemsPerSecond": .number(baselineRate),
        ]
        results["cOneHop"] = [
            "items": .number(Double(baselineItems)), "seconds": .number(cOneHop),
            "itemsPerSecond": .number(cOneHopRate),
        ]
        results["cForward"] = [
            "items": .number(Double(baselineItems)), "seconds": .number(cForward),
            "itemsPerSecond": .number(cForwardRate),
        ]
        results["endToEnd"] = [
            "items": .number(Double(endToEndItems)), "seconds": .number(endToEnd.seconds),
            "itemsPerSecond": .number(rate),
            "ratioToBaseline": .number(rate / baselineRate), "ratioToCForward": .number(rate / cForwardRate),
            "ratioToCOneHop": .number(rate / cOneHopRate), "peakResidentBytes": .number(Double(endToEnd.peakResident)),
            "setup": .string(endToEnd.note), "daemonCPUSeconds": .number(endToEnd.daemonCPUSeconds),
            "loopThreadCPUSeconds": .number(endToEnd.busiestThreadCPUSeconds),
            "hostCPUSeconds": .number(endToEnd.hostCPUSeconds),
        ]
        results["updates"] = [
            "items": .number(Double(endToEndItems)), "seconds": .number(updates.seconds),
            "itemsPerSecond": .number(updateRate),
            "daemonCPUSeconds": .number(updates.daemonCPUSeconds),
            "loopThreadCPUSeconds": .number(updates.busiestThreadCPUSeconds),
            "hostCPUSeconds": .number(updates.hostCPUSeconds),
        ]
        return table.render()
    }

    /// Seconds to forward `items` messages through an in-process PULL→PUB forwarder.
    static func baseline(items: Int) throws -> Double {
        let context = try Context()
        let stop = StopFlag()
        let endpoints = Mailbox<(pull: String, pub: String)>()
        let topic = Array("rows.cars\0".utf8)
        // The forwarder thread owns its two sockets.
        Thread {
            do {
                let input = try Socket(context: context, type: .pull)
                let output = try Socket(context: context, type: .pub)
                for socket in [input, output] {
                    try socket.setOption(.linger, 0)
                    try socket.setOption(.receiveHighWaterMark, 0)
                    try socket.setOption(.sendHighWaterMark, 0)
                }
                try input.bind("tcp://127.0.0.1:*")
                try output.bind("tcp://127.0.0.1:*")
                try input.setOption(.receiveTimeout, 100)
                endpoints.put((try input.lastEndpoint, try output.lastEndpoint))
                while !stop.isSet {
                    guard let body = try input.receive() else { continue }
                    _ = try output.send([topic, body])
                }
            } catch {
                endpoints.put(("", ""))
                print("baseline forwarder: \(error)")
            }
        }.start()
        defer { stop.set() }
        let (pullEndpoint, pubEndpoint) = endpoints.take()
        guard !pullEndpoint.isEmpty else { throw BenchFailure("baseline: the forwarder did not start") }

        let subscriber = try Socket(context: context, type: .sub)
        try subscriber.setOption(.linger, 0)
        try subscriber.setOption(.receiveHighWaterMark, 0)
        try subscriber.setOption(.receiveTimeout, 10_000)
        try subscriber.subscribe("")
        try subscriber.connect(pubEndpoint)
        // Slow joiner: warm up until the subscriber sees a message, then drain the warm-up.
        let warmUp = try Socket(context: context, type: .push)
        try warmUp.setOption(.linger, 0)
        try warmUp.connect(pullEndpoint)
        repeat {
            _ = try warmUp.send(Array("warm-up".utf8))
        } while try subscriber.receiveMultipart(dontWait: true) == nil && sleepBriefly()
        Thread.sleep(forTimeInterval: 0.2)
        while try subscriber.receiveMultipart(dontWait: true) != nil {}
        warmUp.close()

        let messages = (0..<items).map { CarFeed.upsert($0, run: "base") }
        let start = ContinuousClock.now
        startProducer(context: context, endpoint: pullEndpoint, messages: messages)
        var received = 0
        while received < items {
            guard try subscriber.receiveMultipart() != nil else {
                throw BenchFailure("baseline: stalled at \(received) of \(items)")
            }
            received += 1
        }
        let elapsed = ContinuousClock.now - start
        subscriber.close()
        return elapsed.seconds
    }

    /// A thread that owns a PUSH socket and sends `messages` to `endpoint`.
    static func startProducer(context: Context, endpoint: String, messages: [[UInt8]], curve: BenchCurve? = nil) {
        Thread {
            do {
                let producer = try Socket(context: context, type: .push)
                try curve?.apply(to: producer)
                // Everything is queued at once (no high-water mark), so closing must wait for
                // delivery: a finite linger would drop what the daemon has not taken yet.
                try producer.setOption(.linger, -1)
                try producer.setOption(.sendHighWaterMark, 0)
                try producer.connect(endpoint)
                for message in messages { _ = try producer.send(message) }
                producer.close()
            } catch {
                print("producer: \(error)")
            }
        }.start()
    }

    /// Receives publications until they carried `count` rows.
    private static func receiveRows(_ count: Int, from subscriber: Socket, what: String) throws {
        var rows = 0
        while rows < count {
            guard let frames = try subscriber.receiveMultipart() else {
                throw BenchFailure("\(what): stalled at \(rows) of \(count) rows")
            }
            if frames[0].starts(with: Array("rows.".utf8)) { rows += CarFeed.rowCount(in: frames[1]) }
        }
    }

    /// Seconds from the first PUSH to the last row received from a real rowcastd with its
    /// store at `durability`.
    ///
    /// With `updates`, the items are first published once, unmeasured, and the run measures
    /// publishing each of them again with another price: a feed that no longer grows, every
    /// item a reconfigured row.
    static func endToEnd(
        items: Int, durability: String = "normal", run: String = "e2e", pluginDirectory: String? = nil,
        extraArguments: [String] = [],
        curve: BenchCurve? = nil, updates: Bool = false
    ) throws -> EndToEndRun {
        let daemon = try BenchDaemon(
            durability: durability, pluginDirectory: pluginDirectory,
            extraArguments: ["--heartbeat-ms", "50"] + (curve?.daemonArguments ?? []) + extraArguments)
        defer { daemon.stop() }
        let context = try Context()
        let subscriber = try BenchSubscriber.live(
            context: context, publish: daemon.publish, topics: [Array("rows.".utf8)], timeoutMilliseconds: 30_000,
            curve: try curve?.connected(to: daemon))
        if updates {
            startProducer(
                context: context, endpoint: daemon.ingest, messages: (0..<items).map { CarFeed.upsert($0, run: run) },
                curve: try curve?.connected(to: daemon))
            try receiveRows(items, from: subscriber, what: "updates, first pass")
        }
        let messages = (0..<items).map { CarFeed.upsert($0, run: run, priceChange: updates ? 1 : 0) }
        let cpuBefore = ProcessCPU.sample(pid: daemon.process.processIdentifier)
        let hostsBefore = ProcessCPU.childrenSamples(pid: daemon.process.processIdentifier)
        let start = ContinuousClock.now
        startProducer(
            context: context, endpoint: daemon.ingest, messages: messages, curve: try curve?.connected(to: daemon))
        try receiveRows(items, from: subscriber, what: "end to end")
        let elapsed = ContinuousClock.now - start
        let cpuAfter = ProcessCPU.sample(pid: daemon.process.processIdentifier)
        let cpu = cpuAfter.since(cpuBefore)
        let hostsAfter = ProcessCPU.childrenSamples(pid: daemon.process.processIdentifier)
        let hostCPU = hostsAfter.reduce(0) { $0 + $1.value.processSeconds - (hostsBefore[$1.key]?.processSeconds ?? 0) }
        subscriber.close()
        return EndToEndRun(
            seconds: elapsed.seconds, peakResident: daemon.peakResidentBytes,
            note: "store on, durability \(durability), real plugins",
            daemonCPUSeconds: cpu.process, busiestThreadCPUSeconds: cpu.busiestThread, hostCPUSeconds: hostCPU,
            threads: cpuAfter.byThreadName(since: cpuBefore)
                + ProcessCPU.byThreadName(of: hostsAfter, since: hostsBefore, prefix: "host "))
    }
}

/// What one end-to-end run measured.
struct EndToEndRun {
    /// From the first send to the last row received.
    var seconds: Double
    /// The daemon's peak resident memory, bytes.
    var peakResident: Int
    /// How the daemon was set up.
    var note: String
    /// CPU the daemon used during the run, all threads.
    var daemonCPUSeconds: Double
    /// CPU its busiest thread (the loop) used during the run.
    var busiestThreadCPUSeconds: Double
    /// CPU its plugin hosts used during the run (0 with in-process plugins).
    var hostCPUSeconds: Double
    /// CPU of the daemon's threads during the run, by thread name, busiest first, then its
    /// hosts' threads (names prefixed `host `).
    var threads: [ThreadCPU] = []
}

/// One value handed from one thread to another.
final class Mailbox<Value: Sendable>: @unchecked Sendable {  // `value` is guarded by `condition`
    private let condition = NSCondition()
    private var value: Value?

    func put(_ newValue: Value) {
        condition.lock()
        value = newValue
        condition.signal()
        condition.unlock()
    }

    func take() -> Value {
        condition.lock()
        while value == nil { condition.wait() }
        let result = value!
        condition.unlock()
        return result
    }
}

/// A flag one thread sets and another polls.
final class StopFlag: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// Sleeps a millisecond; always true (for use in loop conditions).
func sleepBriefly() -> Bool {
    Thread.sleep(forTimeInterval: 0.001)
    return true
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
