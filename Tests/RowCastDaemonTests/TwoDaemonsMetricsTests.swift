import Foundation
import Logging
import Prometheus
import RowCastDaemon
import RowCastHTTP
import RowCastTesting
import Synchronization
import Testing
import ZeroMQ

/// Two daemons in one process (as tests run them) keep their metrics apart: each
/// `DaemonService` records into its own registry, with no `MetricsSystem.bootstrap`.
struct TwoDaemonsMetricsTests {
    /// A daemon on free loopback ports with no plugins, its HTTP endpoint on a free port.
    static func configuration(state: String) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        configuration.ingestEndpoint = "tcp://127.0.0.1:*"
        configuration.controlEndpoint = "tcp://127.0.0.1:*"
        configuration.publishEndpoint = "tcp://127.0.0.1:*"
        configuration.httpEndpoint = "tcp://127.0.0.1:0"
        configuration.stateDirectory = state
        configuration.pluginIsolation = .inProcess
        return configuration
    }

    @Test("an upsert to one daemon moves its counters only", .timeLimit(.minutes(3)))
    func separateRegistries() throws {
        // Synchronous, with each loop on a thread of its own as DaemonService runs it: an async
        // test would wait on Swift's cooperative pool, which the blocking end-to-end tests
        // running beside it can fill (2 threads on 2 cores; seen under AddressSanitizer).
        let states = [try TemporaryDirectory(), try TemporaryDirectory()]
        let registries = [PrometheusCollectorRegistry(), PrometheusCollectorRegistry()]
        let readyLines = ReadyLines()
        let signals = [StopSignal(), StopSignal()]
        let stopped = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        for index in 0..<2 {
            var environment = DaemonEnvironment()
            environment.announceReady = { line in readyLines.lines.withLock { $0[index] = line } }
            environment.metrics = DescribedPrometheusFactory(
                registry: registries[index], descriptions: DaemonMetricNames.descriptions)
            let daemon = UncheckedDaemon(
                try Daemon(
                    configuration: Self.configuration(state: states[index].path), logger: Logger(label: "test"),
                    environment: environment))
            try daemon.value.start()
            let signal = signals[index], done = stopped[index]
            Thread {
                try? daemon.value.run(until: signal)
                done.signal()
            }.start()
        }
        defer {
            signals.forEach { $0.requestStop() }
            for done in stopped { _ = done.wait(timeout: .now() + 30) }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while readyLines.lines.withLock({ $0.count }) < 2 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        let lines = readyLines.lines.withLock { $0 }
        try #require(lines.count == 2, "not both ready: \(lines)")
        let first = try #require(ReadyLine(in: lines[0]!))

        let context = try Context()
        let dealer = try Socket(context: context, type: .dealer)
        defer { dealer.close() }
        try dealer.setOption(.linger, 0)
        try dealer.setOption(.receiveTimeout, 30_000)
        try dealer.connect(first.control)
        _ = try dealer.send([
            [], Array(#"{"op":"upsert","feed":"cars","req":1,"item":{"id":"a","type":"nobody-renders"}}"#.utf8),
        ])
        let reply = try #require(try dealer.receiveMultipart(), "no reply within 30 s")
        #expect(String(decoding: reply.last ?? [], as: UTF8.self).contains(#""ok":true"#))
        // The counters are fed once per pass: wait (bounded) for the next one.
        while !registries[0].emitToString().contains("rowcast_items_applied_total 1\n")
            && ContinuousClock.now < deadline
        {
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(registries[0].emitToString().contains("rowcast_items_applied_total 1\n"))
        #expect(registries[1].emitToString().contains("rowcast_items_applied_total 0\n"))
    }
}

/// A daemon handed to the thread that runs its loop (only that thread uses it from then on).
final class UncheckedDaemon: @unchecked Sendable {
    let value: Daemon
    init(_ value: Daemon) { self.value = value }
}

/// The ready lines of the daemons, by index, as they announce them (from their loop threads).
final class ReadyLines: Sendable {
    /// Index → ready line.
    let lines = Mutex<[Int: String]>([:])
}
