import Foundation
import Logging
import RowCastCore
import ServiceLifecycle

/// rowcastd's loop as a ServiceLifecycle `Service`. The loop blocks in `zmq_poll` and owns
/// its sockets, so it runs on a thread of its own, never on Swift's cooperative pool: `run()`
/// starts that thread and awaits its end. A graceful shutdown of the group (SIGTERM, SIGINT)
/// or a cancellation asks the loop to stop through the `StopSignal`; the loop then finishes
/// the batch in hand, publishes and replies, and closes the sockets.
public struct DaemonService: Service {
    /// The configuration to start with.
    public let configuration: DaemonConfiguration
    /// The signal the loop obeys (stop, reload).
    public let signal: StopSignal
    /// Where the loop logs.
    public let logger: Logger
    /// Notifications, watchdog, log level and reload hooks.
    public let environment: DaemonEnvironment

    /// A service running a `Daemon` with `configuration`.
    public init(configuration: DaemonConfiguration, signal: StopSignal, logger: Logger, environment: DaemonEnvironment) {
        self.configuration = configuration
        self.signal = signal
        self.logger = logger
        self.environment = environment
    }

    /// Starts the daemon on its own thread and returns when the loop has ended; throws what
    /// stopped it from starting (an endpoint in use, say) or from running.
    public func run() async throws {
        let signal = self.signal
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await runLoopThread()
            } onGracefulShutdown: {
                signal.requestStop()
            }
        } onCancel: {
            signal.requestStop()
        }
    }

    private func runLoopThread() async throws {
        let configuration = self.configuration
        let signal = self.signal
        let logger = self.logger
        let environment = self.environment
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            NamedThread.start("rowcastd-loop") {
                // The daemon is released before the continuation resumes: its sockets, then
                // its ZeroMQ context, whose termination waits (at most the linger time) for
                // queued replies and deltas to leave. Only then may the process exit.
                let result = Result<Void, any Error> {
                    let daemon = try Daemon(configuration: configuration, logger: logger, environment: environment)
                    do {
                        try daemon.start()
                    } catch {
                        daemon.close()
                        throw DaemonStartError(underlying: error)
                    }
                    try daemon.run(until: signal)
                }
                continuation.resume(with: result)
            }
        }
    }
}

/// The daemon could not start: the message says why (an endpoint in use or malformed, names it).
public struct DaemonStartError: Error, CustomStringConvertible {
    /// What failed.
    public let underlying: any Error
    /// `cannot start: ...`.
    public var description: String { "cannot start: \(underlying)" }
}
