import Logging
import RowCastDaemon
import ServiceLifecycle
import ServiceLifecycleTestKit
import Synchronization
import Testing
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// Signals to loop requests, with SIGUSR1 standing in for SIGHUP and SIGWINCH for SIGTERM so
/// that the test process keeps its own handling of the real ones (the ZeroMQ tests own SIGUSR2).
struct SignalServiceTests {
    @Test("reload signal reloads; the first stop signal drains; the second exits at once")
    func routing() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigusr1, .sigwinch)
        let stop = StopSignal()
        let exits = Atomic<Int>(0)
        let service = SignalService(
            signals: signals, stop: stop, logger: Logger(label: "test"), reloadSignals: [.sigusr1]
        ) {
            exits.add(1, ordering: .relaxed)
        }
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await service.run() }
                kill(getpid(), SIGUSR1)
                #expect(await waitUntil { stop.takeReloadRequest() })
                #expect(!stop.isStopRequested)
                kill(getpid(), SIGWINCH)
                #expect(await waitUntil { stop.isStopRequested })
                #expect(exits.load(ordering: .relaxed) == 0)
                kill(getpid(), SIGWINCH)
                #expect(await waitUntil { exits.load(ordering: .relaxed) == 1 })
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
    }

    /// Polls `condition` every 10 ms for at most 10 s.
    func waitUntil(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
