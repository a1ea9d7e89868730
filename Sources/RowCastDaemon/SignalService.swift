import Logging
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// Turns signals into requests to the loop: SIGHUP reloads; the first SIGTERM or SIGINT asks
/// for a drain (the `ServiceGroup` sees it too and shuts the group down gracefully) and arms
/// the drain deadline (the process exits 70 if the drain is not over in time); a second
/// one exits at once with status 1. Runs until its own graceful shutdown, which the group
/// sends after the daemon service ended (services stop in reverse order), so a second signal
/// during the drain is still heard.
public struct SignalService: Service {
    /// The signals, trapped before anything else started (so none kills the process by
    /// default while rowcastd starts).
    public let signals: UnixSignalsSequence
    /// The signal the loop obeys.
    public let stop: StopSignal
    /// Where signal events are logged.
    public let logger: Logger
    /// The signals that ask for a reload (SIGHUP); every other one asks for a stop.
    public let reloadSignals: [UnixSignal]
    /// What a second stop signal does; exits the process at once with status 1 by default.
    public let exitNow: @Sendable () -> Void
    /// Armed by the first stop signal: bounds the drain.
    public let drainDeadline: DrainDeadline?

    /// The signals rowcastd traps: SIGTERM, SIGINT, SIGHUP.
    public static let trapped: [UnixSignal] = [.sigterm, .sigint, .sighup]

    /// A service routing `signals` to `stop`: those in `reloadSignals` reload, the rest stop
    /// (and arm `drainDeadline`).
    public init(
        signals: UnixSignalsSequence, stop: StopSignal, logger: Logger, reloadSignals: [UnixSignal] = [.sighup],
        drainDeadline: DrainDeadline? = nil, exitNow: @escaping @Sendable () -> Void = { _exit(1) }
    ) {
        self.signals = signals
        self.stop = stop
        self.logger = logger
        self.reloadSignals = reloadSignals
        self.drainDeadline = drainDeadline
        self.exitNow = exitNow
    }

    /// Handles signals until the group's graceful shutdown reaches this service.
    public func run() async {
        var stops = 0
        for await signal in signals.cancelOnGracefulShutdown() {
            if reloadSignals.contains(signal) {
                logger.info("\(signal): reloading the configuration and plugins")
                stop.requestReload()
                continue
            }
            stops += 1
            if stops == 1 {
                logger.info(
                    "\(signal): stopping after the batch in hand (send it again to exit at once)",
                    metadata: drainDeadline.map { ["drainTimeoutMs": "\($0.timeoutMilliseconds)"] } ?? [:])
                drainDeadline?.arm()
                stop.requestStop()
            } else {
                logger.critical("\(signal) again: exiting at once, without draining")
                exitNow()
            }
        }
    }
}
