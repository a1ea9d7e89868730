import Foundation
import Logging
import Prometheus
import RowCastSupport
import RowCastHTTP
import ServiceLifecycle

/// rowcastd's loop as a ServiceLifecycle `Service`. The loop blocks in `zmq_poll` and owns
/// its sockets, so it runs on a thread of its own, never on Swift's cooperative pool: `run()`
/// starts that thread and awaits its end. A graceful shutdown of the group (SIGTERM, SIGINT)
/// or a cancellation asks the loop to stop through the `StopSignal`; the loop then finishes
/// the batch in hand, publishes and replies, and closes the sockets.
///
/// With `endpoints.http` set, the HTTP endpoint (`/metrics`, `/healthz`, and the routes of
/// `routeInstallers`) is bound first, on SwiftNIO's threads, and closed after the loop ended,
/// so `/healthz` answers `draining` while a stop drains.
public struct DaemonService: Service {
    /// The configuration to start with.
    public let configuration: DaemonConfiguration
    /// The signal the loop obeys (stop, reload).
    public let signal: StopSignal
    /// Where the loop logs.
    public let logger: Logger
    /// Notifications, watchdog, log level and reload hooks.
    public let environment: DaemonEnvironment
    /// Where this daemon's metrics live; `/metrics` renders it.
    public let registry: PrometheusCollectorRegistry
    /// Routes added to the HTTP endpoint beside `/metrics` and `/healthz` (the web gateway).
    public let routeInstallers: [RouteInstaller]

    /// A service running a `Daemon` with `configuration`, its metrics in `registry` (a new
    /// one by default) and `routeInstallers` on its HTTP endpoint.
    public init(
        configuration: DaemonConfiguration, signal: StopSignal, logger: Logger, environment: DaemonEnvironment,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), routeInstallers: [RouteInstaller] = []
    ) {
        self.configuration = configuration
        self.signal = signal
        self.logger = logger
        self.environment = environment
        self.registry = registry
        self.routeInstallers = routeInstallers
    }

    /// Starts the HTTP endpoint (when configured), then the daemon on its own thread, and
    /// returns when the loop has ended and the HTTP endpoint is closed; throws what stopped it
    /// from starting (an endpoint in use, say) or from running.
    public func run() async throws {
        let signal = self.signal
        let health = environment.health ?? LoopHealth()
        health.setStall(.milliseconds(configuration.healthStallMilliseconds))
        var environment = self.environment
        environment.health = health
        let http = try await startHTTP(health: health)
        environment.httpAddress = http?.address
        // Without the endpoint nobody can read the metrics: the loop records none.
        if http == nil {
            environment.metrics = nil
        } else if environment.metrics == nil {
            environment.metrics = DescribedPrometheusFactory(
                registry: registry, descriptions: DaemonMetricNames.descriptions)
        }
        do {
            try await withTaskCancellationHandler {
                try await withGracefulShutdownHandler {
                    try await runLoopThread(environment: environment)
                } onGracefulShutdown: {
                    signal.requestStop()
                }
            } onCancel: {
                signal.requestStop()
            }
        } catch {
            health.enter(.stopped)
            await http?.stop()
            throw error
        }
        health.enter(.stopped)
        await http?.stop()
    }

    /// Binds the HTTP endpoint, or returns nil when `endpoints.http` is "".
    private func startHTTP(health: LoopHealth) async throws -> RunningHTTPEndpoint? {
        let endpoint: HTTPEndpoint?
        do {
            endpoint = try HTTPEndpoint.parse(configuration.httpEndpoint)
        } catch {
            throw DaemonStartError(
                underlying: ConfigurationError(
                    .invalidValue, file: environment.configurationFile, key: "endpoints.http", problem: error.problem))
        }
        guard let endpoint else { return nil }
        let installers =
            [MetricsRoute.installer(registry), HealthRoute.installer { health.report() }] + routeInstallers
        let policy = HTTPOriginPolicy(
            allowedHosts: configuration.httpAllowedHosts, allowedOrigins: configuration.httpAllowedOrigins,
            hostSetting: "http_allowed_hosts (--http-allowed-host)",
            originSetting: "http_allowed_origins (--http-allowed-origin)")
        let server = HTTPEndpointServer(
            endpoint: endpoint, policy: policy, limits: configuration.httpConnectionLimits, installers: installers,
            logger: Logger(label: "rowcastd.http"))
        do {
            let running = try await server.start()
            if case .unix(let path) = endpoint {
                do {
                    try SocketPermissions(configuration, file: environment.configurationFile).apply(toSocketFile: path)
                } catch {
                    await running.stop()
                    throw error
                }
            }
            logger.info("HTTP endpoint listening", metadata: ["http": "\(running.address)"])
            return running
        } catch let error as HTTPEndpointStartError {
            throw DaemonStartError(underlying: error)
        } catch {
            throw DaemonStartError(underlying: error)
        }
    }

    private func runLoopThread(environment: DaemonEnvironment) async throws {
        let configuration = self.configuration
        let signal = self.signal
        let logger = self.logger
        if configuration.engineThreads > 1 {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                NamedThread.start("rowcastd-front") {
                    let group = EngineThreadGroup(
                        configuration: configuration, logger: logger, environment: environment)
                    continuation.resume(with: Result { try group.run(until: signal) })
                }
            }
            return
        }
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
