import CoreMetrics

/// What the daemon needs from the process around it: where to announce readiness, systemd's
/// notify socket and watchdog, the log level a reload may change, and how to read the
/// configuration again. The default does none of it (for tests and embedding).
public struct DaemonEnvironment: Sendable {
    /// Notifications to systemd (READY=1, STATUS=, WATCHDOG=1, RELOADING=1, STOPPING=1).
    public var notifier: SystemdNotifier = .disabled
    /// The watchdog interval systemd asked for, if any.
    public var watchdog: WatchdogSchedule?
    /// The shared log level, set from the configuration on every reload.
    public var logLevel: LogLevelSwitch?
    /// Reads the configuration again (file and flags) for a reload; nil keeps the one the
    /// daemon started with and only rescans the plugin directories.
    public var reloadConfiguration: (@Sendable () throws(ConfigurationError) -> DaemonConfiguration)?
    /// The configuration file, for the log and the `reload` reply.
    public var configurationFile: String?
    /// Receives the one-line ready message once every socket is bound.
    public var announceReady: @Sendable (String) -> Void = { _ in }
    /// Where the daemon creates its metrics (a registry of its own per daemon, so several in
    /// one process do not mix); nil records none.
    public var metrics: (any MetricsFactory)?
    /// Where the loop reports its passes and phase, for `/healthz`; nil reports nowhere.
    public var health: LoopHealth?
    /// The HTTP endpoint's bound address, for the ready line (`http=...`); nil when it is off.
    public var httpAddress: String?

    /// An environment that does nothing.
    public init() {}
}
