import Foundation
import Logging
import Prometheus
import RowCastDaemon
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

    @Test("an upsert to one daemon moves its counters only", .timeLimit(.minutes(1)))
    func separateRegistries() async throws {
        let states = [try TemporaryDirectory(), try TemporaryDirectory()]
        let registries = [PrometheusCollectorRegistry(), PrometheusCollectorRegistry()]
        let readyLines = ReadyLines()
        let signals = [StopSignal(), StopSignal()]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<2 {
                var environment = DaemonEnvironment()
                environment.announceReady = { line in readyLines.lines.withLock { $0[index] = line } }
                let service = DaemonService(
                    configuration: Self.configuration(state: states[index].path), signal: signals[index],
                    logger: Logger(label: "test"), environment: environment, registry: registries[index]
                )
                group.addTask { try await service.run() }
            }
            defer { signals.forEach { $0.requestStop() } }
            let deadline = ContinuousClock.now + .seconds(30)
            while readyLines.lines.withLock({ $0.count }) < 2 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            let lines = readyLines.lines.withLock { $0 }
            try #require(lines.count == 2, "not both ready: \(lines)")
            let first = try #require(ReadyLine(in: lines[0]!))
            #expect(first.http.hasPrefix("tcp://127.0.0.1:"))
            #expect(ReadyLine(in: lines[1]!)?.http != first.http)

            let context = try Context()
            let dealer = try Socket(context: context, type: .dealer)
            defer { dealer.close() }
            try dealer.setOption(.linger, 0)
            try dealer.setOption(.receiveTimeout, 10_000)
            try dealer.connect(first.control)
            _ = try dealer.send([[], Array(#"{"op":"upsert","feed":"cars","req":1,"item":{"id":"a","type":"nobody-renders"}}"#.utf8)])
            let reply = try #require(try dealer.receiveMultipart(), "no reply within 10 s")
            #expect(String(decoding: reply.last ?? [], as: UTF8.self).contains(#""ok":true"#))
            // The counters are fed once per pass: wait (bounded) for the next one.
            while !registries[0].emitToString().contains("rowcast_items_applied_total 1\n") && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(registries[0].emitToString().contains("rowcast_items_applied_total 1\n"))
            #expect(registries[1].emitToString().contains("rowcast_items_applied_total 0\n"))
            signals.forEach { $0.requestStop() }
            try await group.waitForAll()
        }
    }
}

/// The ready lines of the daemons, by index, as they announce them (from their loop threads).
final class ReadyLines: Sendable {
    /// Index → ready line.
    let lines = Mutex<[Int: String]>([:])
}
