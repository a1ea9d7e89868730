import ArgumentParser
import CoreMetrics
import Foundation
import Logging
import Prometheus
import RowCastEngine
import RowCastDaemon
import RowCastGateway
import RowCastHTTP
import RowCastJSON
import RowCastSupport
import ServiceLifecycle
import UnixSignals

/// `rowcastd`: the RowCast daemon.
@main
struct RowcastdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rowcastd",
        abstract: "The RowCast daemon: renders feed items into rows with plugins and publishes the changes.",
        discussion: """
            Producers send feed operations to the ingest (PULL) or control (ROUTER) socket; \
            subscribers get deltas from the publish (PUB) socket. See docs/PROTOCOL.md.

            Settings come from the embedded defaults, then the file given with --config \
            (Config/rowcastd.yaml documents every key), then the options below. With no options \
            rowcastd listens on 127.0.0.1 ports 7701 (ingest), 7702 (control) and 7703 (publish), \
            serves /metrics and /healthz over HTTP on 127.0.0.1:7780 (--http), \
            and loads plugins (librowcast-*.so) from the directory of its own executable and from \
            ../lib/rowcast/plugins next to it. When every socket is bound it prints one line: \
            "rowcastd ready ingest=... control=... publish=... http=..." (and tells systemd READY=1).

            SIGTERM or SIGINT stops it after the batch in hand (a second one stops it at once, and \
            a stop that takes longer than --drain-timeout-ms ends with status 70); SIGABRT (the \
            systemd watchdog) kills it at once; SIGHUP re-reads the configuration file and \
            rescans the plugin directories.

            Feeds are kept in an SQLite database in the state directory and every ack is sent \
            after its batch is committed (docs/OPERATIONS.md, "State").

            Exit status: 0 stopped by a signal after draining; 1 could not start or run, or a \
            second stop signal; 64 invalid command line; 65 the database needs a person \
            (damaged, newer, foreign, or state lost: see --accept-state-loss and --check-state); \
            66 no state to check (--check-state); 73 the state directory cannot be written; 74 an I/O \
            error on the state; 70 a stop did not finish within --drain-timeout-ms; 75 another \
            rowcastd uses the state directory or an ipc:// socket path; 78 invalid configuration (or a CURVE key file or \
            ipc socket permission that cannot be used).
            """,
        version: RowCastVersion.current
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Read settings from this YAML file (see Config/rowcastd.yaml); options below override it.",
            valueName: "file"))
    var config: String?

    @Flag(
        name: .long,
        help:
            "Check the configuration (file and options), print the settings in force, and exit: 0 when valid, 78 when not."
    )
    var checkConfig = false

    @Flag(
        name: .long,
        help:
            "Check every record of the state directory, read-only (SQLite's integrity check, each record's checksum, each item's JSON), print what is damaged, and exit: 0 when nothing is, 65 when something is, 66 when there is no state, 75 while a rowcastd runs on it."
    )
    var checkState = false

    @Flag(
        name: .long,
        help:
            "Start even though rowcast.position shows history the database no longer holds (otherwise exit 65); every feed starts a new epoch. For one start, after deciding the loss is acceptable."
    )
    var acceptStateLoss = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "ZeroMQ endpoint of the ingest (PULL) socket. [default: tcp://127.0.0.1:7701]", valueName: "endpoint"))
    var ingest: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "ZeroMQ endpoint of the control (ROUTER) socket. [default: tcp://127.0.0.1:7702]", valueName: "endpoint"))
    var control: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "ZeroMQ endpoint of the publish (PUB) socket. [default: tcp://127.0.0.1:7703]", valueName: "endpoint"))
    var publish: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The HTTP endpoint: /metrics and /healthz, and the web gateway's pages, streams and row actions (without CURVE): tcp://HOST:PORT, ipc:///path, or \"\" for none. [default: tcp://127.0.0.1:7780]",
            valueName: "endpoint"))
    var http: String?

    @Option(
        name: .customLong("http-allowed-host"),
        help: ArgumentHelp(
            "A host name the HTTP endpoint serves besides IP addresses and localhost (.example.com: it and every name under it); repeat for several. Replaces http_allowed_hosts.",
            valueName: "name"))
    var httpAllowedHosts: [String] = []

    @Option(
        name: .customLong("http-allowed-origin"),
        help: ArgumentHelp(
            "An origin (https://app.example.com) whose pages may stream feeds and run row actions through the HTTP endpoint, besides its own; repeat for several. Replaces http_allowed_origins.",
            valueName: "origin"))
    var httpAllowedOrigins: [String] = []

    @Option(
        name: .customLong("http-image-origin"),
        help: ArgumentHelp(
            "An origin (https://img.example.com) the gateway's page may load row images from; repeat for several. Replaces http_image_origins.",
            valueName: "origin"))
    var httpImageOrigins: [String] = []

    @Option(
        name: .customLong("http-token-secret-file"),
        help: ArgumentHelp(
            "A file holding an HS256 secret (32 bytes or more) that the gateway's user tokens may be signed with; repeat for several. Replaces http_token_secret_files.",
            valueName: "file"))
    var httpTokenSecretFiles: [String] = []

    @Option(
        name: .customLong("http-token-public-key-file"),
        help: ArgumentHelp(
            "A PEM public key (ES256, RS256) that the gateway's user tokens may be signed for; repeat for several. Replaces http_token_public_key_files.",
            valueName: "file"))
    var httpTokenPublicKeyFiles: [String] = []

    @Option(
        name: .customLong("http-token-audience"),
        help: ArgumentHelp(
            "Take only gateway user tokens whose \"aud\" names this audience. Replaces http_token_audience.",
            valueName: "audience"))
    var httpTokenAudience: String?

    @Option(
        name: .customLong("http-token-issuer"),
        help: ArgumentHelp(
            "Take only gateway user tokens whose \"iss\" is this issuer. Replaces http_token_issuer.",
            valueName: "issuer"))
    var httpTokenIssuer: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Whether the gateway on the HTTP endpoint needs user tokens: auto (with a token key, and beyond loopback), required, or off. [default: auto]",
            valueName: "auto|required|off"))
    var httpTokens: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long a request's line and headers may take to arrive at the HTTP endpoint; a late one is answered 408 and closed. [default: 60000]",
            valueName: "ms"))
    var httpHeaderTimeoutMs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long a kept-alive HTTP connection may wait for its next request before it is closed. [default: 60000]",
            valueName: "ms"))
    var httpIdleTimeoutMs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long an HTTP connection may take no data while data waits for it (a stream nobody reads) before it is reset. [default: 30000]",
            valueName: "ms"))
    var httpWriteTimeoutMs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How many HTTP connections one client address may hold at once; the next is closed and logged. [default: 64]",
            valueName: "connections"))
    var httpMaxConnectionsPerPeer: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "/healthz says stuck (503) when the loop has not finished a pass for this long. [default: 5000]",
            valueName: "ms"))
    var healthStallMs: Int?

    @Option(
        name: .long, help: ArgumentHelp("The file mode of ipc:// sockets, in octal. [default: 0660]", valueName: "mode")
    )
    var socketMode: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The group of ipc:// sockets; \"\" keeps rowcastd's own group. [default: \"\"]", valueName: "group"))
    var socketGroup: String?

    @Flag(
        name: .long,
        help:
            "Allow a TCP endpoint beyond loopback without CURVE: anyone who reaches it may publish, reset and read every feed."
    )
    var allowInsecureTcp = false

    @Flag(
        name: .long, help: "Require CURVE on TCP endpoints; a ZAP handler admits only the clients in --curve-clients.")
    var curve = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The server's CURVE key pair file, generated when absent. [default: <state dir>/curve/server.key]",
            valueName: "file"))
    var curveServerKey: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The directory of allowed client public keys, one NAME.key file per client. [default: /etc/rowcast/clients]",
            valueName: "dir"))
    var curveClients: String?

    @Option(
        name: .customLong("plugins"),
        help: ArgumentHelp(
            "A directory to load plugins (librowcast-*.so) from; repeat for several. Replaces the configured directories.",
            valueName: "dir"))
    var pluginDirectories: [String] = []

    @Option(
        name: .customLong("cells"),
        help: ArgumentHelp(
            "A directory of declarative cell files (*.yaml) to load; repeat for several. Replaces the configured directories.",
            valueName: "dir"))
    var cellDirectories: [String] = []

    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp(
            "Where the durable state lives. [default: $STATE_DIRECTORY, else ./.rowcast]", valueName: "dir"))
    var stateDirectory: String?

    @Option(
        name: .long,
        help: ArgumentHelp("How hard commits push data to disk: normal or full. [default: normal]", valueName: "mode"))
    var durability: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The durable store: postgresql://USER@HOST[:PORT]/DB (password from PGPASSWORD or a passfile, never here) or sqlite:///DIR. [default: SQLite in the state directory]",
            valueName: "url"))
    var store: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run as this node of a cluster: nodes given the same PostgreSQL --store and distinct names share the feeds, each partition owned by one live node (docs/OPERATIONS.md, \"Cluster\"). [default: none, run alone]",
            valueName: "name"))
    var nodeName: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long a cluster node's lease on its partitions lasts unrenewed, in milliseconds; a dead node's partitions move within about this time. [default: 3000]",
            valueName: "ms"))
    var leaseMs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The host other cluster nodes reach this node's endpoints at, in place of a wildcard or loopback address. [default: the bound address]",
            valueName: "host"))
    var advertiseHost: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Start commits of fire-and-forget ingest at most this often, in microseconds; 0 commits each batch at once. [default: 500]",
            valueName: "us"))
    var commitIntervalUs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run this many engine loops, each serving the feeds of its partitions on a thread of its own behind the same endpoints (docs/OPERATIONS.md, \"Engine threads\"); a cluster node (--node-name) holds its leases once for all of them. [default: 1]",
            valueName: "n"))
    var engineThreads: Int?

    @Option(
        name: .long,
        help: ArgumentHelp("The largest request accepted, in bytes. [default: 1048576]", valueName: "bytes"))
    var maxMessageBytes: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Heartbeat after this many milliseconds without publishing. [default: 1000]", valueName: "ms"))
    var heartbeatMs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long a stop (SIGTERM, SIGINT) may take before rowcastd exits 70 without a clean stop. [default: 10000]",
            valueName: "ms"))
    var drainTimeoutMs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp("The most messages read and applied in one pass. [default: 1024]", valueName: "count"))
    var batchLimit: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long closing sockets may wait to deliver what is queued. [default: 2000]", valueName: "ms"))
    var lingerMs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Replies queued per control client; newer ones to a client that leaves more unread are dropped and counted. [default: 1000]",
            valueName: "count"))
    var clientReplyQueue: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The most feeds; creating one more is refused with limit_exceeded. [default: 100000]", valueName: "count"))
    var maxFeeds: Int?

    @Option(name: .long, help: ArgumentHelp("The most items in one feed. [default: 1000000]", valueName: "count"))
    var maxItemsPerFeed: Int?

    @Option(name: .long, help: ArgumentHelp("The most sections in one feed. [default: 10000]", valueName: "count"))
    var maxSectionsPerFeed: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The most bytes of item JSON plus rendered rows over every feed. [default: 805306368 (768 MiB)]",
            valueName: "bytes"))
    var maxStoredBytes: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Recent deltas kept per feed for since requests; 0 keeps none. [default: 1000]", valueName: "count"))
    var historyDeltas: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The most bytes of recent deltas kept over every feed. [default: 67108864 (64 MiB)]", valueName: "bytes"))
    var historyBytes: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where plugins run: process (a supervised rowcast-plugin-host per plugin file) or in_process (inside rowcastd: trusted plugins only). [default: process]",
            valueName: "mode"))
    var pluginIsolation: String?

    @Option(
        name: .long,
        help: ArgumentHelp("The rowcast-plugin-host executable. [default: the one next to rowcastd]", valueName: "path")
    )
    var pluginHost: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Kill a plugin host whose callback runs longer than this; the item gets plugin_timeout. [default: 1000]",
            valueName: "ms"))
    var pluginTimeoutMs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Each plugin host's address-space limit in MiB, 0 for none. [default: 1024]", valueName: "MiB"))
    var pluginMemoryMb: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The user plugin hosts run as when rowcastd runs as root; \"\" keeps root. [default: nobody]",
            valueName: "name"))
    var pluginUser: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A plugin (NAME of librowcast-NAME.so) whose host runs without seccomp, Landlock and a network namespace; repeat for several. Replaces the configured list.",
            valueName: "name"))
    var pluginUnconfined: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Log level: trace, debug, info, notice, warning, error or critical. [default: info]", valueName: "level"))
    var logLevel: String?

    /// The options given, as overrides of the configuration file.
    var overrides: ConfigurationOverrides {
        var overrides = ConfigurationOverrides()
        overrides.set("endpoints.ingest", ingest.map(ConfigurationValue.text))
        overrides.set("endpoints.control", control.map(ConfigurationValue.text))
        overrides.set("endpoints.publish", publish.map(ConfigurationValue.text))
        overrides.set("endpoints.http", http.map(ConfigurationValue.text))
        overrides.set("http_allowed_hosts", httpAllowedHosts.isEmpty ? nil : .texts(httpAllowedHosts))
        overrides.set("http_allowed_origins", httpAllowedOrigins.isEmpty ? nil : .texts(httpAllowedOrigins))
        overrides.set("http_image_origins", httpImageOrigins.isEmpty ? nil : .texts(httpImageOrigins))
        overrides.set(
            "http_token_secret_files", httpTokenSecretFiles.isEmpty ? nil : .texts(httpTokenSecretFiles))
        overrides.set(
            "http_token_public_key_files", httpTokenPublicKeyFiles.isEmpty ? nil : .texts(httpTokenPublicKeyFiles))
        overrides.set("http_token_audience", httpTokenAudience.map(ConfigurationValue.text))
        overrides.set("http_token_issuer", httpTokenIssuer.map(ConfigurationValue.text))
        overrides.set("http_tokens", httpTokens.map(ConfigurationValue.text))
        overrides.set("http_header_timeout_ms", httpHeaderTimeoutMs.map(ConfigurationValue.integer))
        overrides.set("http_idle_timeout_ms", httpIdleTimeoutMs.map(ConfigurationValue.integer))
        overrides.set("http_write_timeout_ms", httpWriteTimeoutMs.map(ConfigurationValue.integer))
        overrides.set("http_max_connections_per_peer", httpMaxConnectionsPerPeer.map(ConfigurationValue.integer))
        overrides.set("health_stall_ms", healthStallMs.map(ConfigurationValue.integer))
        overrides.set("socket_mode", socketMode.map(ConfigurationValue.text))
        overrides.set("socket_group", socketGroup.map(ConfigurationValue.text))
        overrides.set("allow_insecure_tcp", allowInsecureTcp ? .boolean(true) : nil)
        overrides.set("curve", curve ? .boolean(true) : nil)
        overrides.set("curve_server_key", curveServerKey.map(ConfigurationValue.text))
        overrides.set("curve_clients_directory", curveClients.map(ConfigurationValue.text))
        overrides.set("plugin_directories", pluginDirectories.isEmpty ? nil : .texts(pluginDirectories))
        overrides.set("cell_directories", cellDirectories.isEmpty ? nil : .texts(cellDirectories))
        overrides.set("state_directory", stateDirectory.map(ConfigurationValue.text))
        overrides.set("durability", durability.map(ConfigurationValue.text))
        overrides.set("store", store.map(ConfigurationValue.text))
        overrides.set("cluster.node_name", nodeName.map(ConfigurationValue.text))
        overrides.set("cluster.lease_ms", leaseMs.map(ConfigurationValue.integer))
        overrides.set("cluster.advertise_host", advertiseHost.map(ConfigurationValue.text))
        overrides.set("commit_interval_us", commitIntervalUs.map(ConfigurationValue.integer))
        overrides.set("engine.threads", engineThreads.map(ConfigurationValue.integer))
        overrides.set("limits.max_message_bytes", maxMessageBytes.map(ConfigurationValue.integer))
        overrides.set("heartbeat_ms", heartbeatMs.map(ConfigurationValue.integer))
        overrides.set("drain_timeout_ms", drainTimeoutMs.map(ConfigurationValue.integer))
        overrides.set("limits.batch_limit", batchLimit.map(ConfigurationValue.integer))
        overrides.set("limits.linger_ms", lingerMs.map(ConfigurationValue.integer))
        overrides.set("limits.client_reply_queue", clientReplyQueue.map(ConfigurationValue.integer))
        overrides.set("limits.max_feeds", maxFeeds.map(ConfigurationValue.integer))
        overrides.set("limits.max_items_per_feed", maxItemsPerFeed.map(ConfigurationValue.integer))
        overrides.set("limits.max_sections_per_feed", maxSectionsPerFeed.map(ConfigurationValue.integer))
        overrides.set("limits.max_stored_bytes", maxStoredBytes.map(ConfigurationValue.integer))
        overrides.set("limits.history_deltas", historyDeltas.map(ConfigurationValue.integer))
        overrides.set("limits.history_bytes", historyBytes.map(ConfigurationValue.integer))
        overrides.set("log_level", logLevel.map(ConfigurationValue.text))
        overrides.set("plugin_isolation", pluginIsolation.map(ConfigurationValue.text))
        overrides.set("plugin_host", pluginHost.map(ConfigurationValue.text))
        overrides.set("plugin_timeout_ms", pluginTimeoutMs.map(ConfigurationValue.integer))
        overrides.set("plugin_memory_mb", pluginMemoryMb.map(ConfigurationValue.integer))
        overrides.set("plugin_user", pluginUser.map(ConfigurationValue.text))
        overrides.set("plugin_unconfined", pluginUnconfined.isEmpty ? nil : .texts(pluginUnconfined))
        return overrides
    }

    func validate() throws {
        do {
            _ = try overrides.apply(to: DaemonConfiguration())
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        // SIGABRT (systemd's watchdog) must kill, never be survived: undo the runtime's handler.
        FatalSignals.restoreDefaults()
        let environment = ProcessInfo.processInfo.environment
        let source = ConfigurationSource(
            defaults: ConfigurationSource.processDefaults(
                pluginDirectories: Self.defaultPluginDirectories(), pluginHost: Self.defaultPluginHost(),
                environment: environment),
            file: config,
            overrides: overrides
        )
        var configuration: DaemonConfiguration
        do {
            configuration = try source.load()
        } catch {
            Self.printError("rowcastd: invalid configuration: \(error)")
            throw ExitCode(78)
        }
        configuration.acceptStateLoss = acceptStateLoss
        if checkConfig {
            // The gateway's token keys, read as serving reads them (a key refused here would
            // stop the daemon at start).
            do throws(TokenKeyError) {
                _ = try await EmbeddedGateway.checkedTokenVerifier(configuration)
            } catch {
                Self.printError("rowcastd: invalid configuration: \(error)")
                throw ExitCode(78)
            }
            print(
                "# rowcastd: the configuration is valid (\(config.map { "file \($0)" } ?? "embedded defaults") and options); settings in force:"
            )
            print(ConfigurationFile.render(configuration), terminator: "")
            if configuration.curve { try Self.checkCurve(configuration) }
            return
        }
        if checkState { throw ExitCode(Self.checkState(configuration.stateDirectory)) }

        // Before the daemon's threads make their heaps: see HeapGrowth.
        HeapGrowth.apply(environment: environment)

        // Trap the signals first: from here on none of them kills the process by default.
        let signals = await UnixSignalsSequence(trapping: SignalService.trapped)
        let levelSwitch = LogLevelSwitch(configuration.logLevel)
        let style: LogLine.Style = DaemonLogHandler.isJournalStream(environment) ? .journal : .plain
        LoggingSystem.bootstrap { label in DaemonLogHandler(label: label, style: style, levelSwitch: levelSwitch) }
        let logger = Logger(label: "rowcastd")

        var daemonEnvironment = DaemonEnvironment()
        do {
            daemonEnvironment.notifier = try SystemdNotifier(environment: environment)
        } catch {
            logger.warning("not notifying systemd", metadata: ["reason": "\(error)"])
        }
        daemonEnvironment.watchdog = WatchdogSchedule(environment: environment, pid: getpid())
        daemonEnvironment.logLevel = levelSwitch
        daemonEnvironment.configurationFile = config
        daemonEnvironment.reloadConfiguration = { () throws(ConfigurationError) in try source.load() }
        daemonEnvironment.announceReady = { line in
            print(line)
            fflush(nil)
        }

        let stop = StopSignal()
        let drainDeadline = DrainDeadline(
            timeout: .milliseconds(configuration.drainTimeoutMilliseconds), logger: logger)
        // One registry for the process: the daemon's metrics (created through the factory it is
        // given) and any library's that use the global MetricsSystem; /metrics renders it.
        let registry = PrometheusCollectorRegistry()
        let metricsFactory = DescribedPrometheusFactory(
            registry: registry,
            descriptions: DaemonMetricNames.descriptions
                + GatewayMetrics.descriptions.map { MetricDescription($0.name, help: $0.help) })
        MetricsSystem.bootstrap(metricsFactory)
        daemonEnvironment.metrics = metricsFactory
        daemonEnvironment.health = LoopHealth(stall: .milliseconds(configuration.healthStallMilliseconds))
        // The web gateway rides on the HTTP endpoint, as a client of this daemon's sockets.
        let gateway: FeedGateway?
        do {
            gateway = try await EmbeddedGateway.make(configuration, metrics: metricsFactory, logger: logger)
        } catch {
            Self.printError("rowcastd: invalid configuration: \(error)")
            throw ExitCode(78)
        }
        let daemon = DaemonService(
            configuration: configuration, signal: stop, logger: logger, environment: daemonEnvironment,
            registry: registry,
            routeInstallers: gateway.map { [EmbeddedGateway.installer($0)] } ?? [])
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: SignalService(signals: signals, stop: stop, logger: logger, drainDeadline: drainDeadline)),
            .init(
                service: daemon, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup),
        ]
        if let gateway { services.append(.init(service: gateway)) }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Logger(label: "rowcastd.lifecycle")
            ))
        do {
            try await group.run()
        } catch let error as DaemonStartError where error.underlying is StoreError {
            // State that cannot be used has an exit status of its own (65, 73, 74, 75) so the
            // unit does not restart into the same problem.
            let storeError = error.underlying as! StoreError
            logger.critical("rowcastd cannot use its state", metadata: ["error": "\(storeError.message)"])
            Self.printError("rowcastd: cannot start: \(storeError.message)")
            throw ExitCode(storeError.exitStatus)
        } catch let error as DaemonStartError where error.underlying is SocketInUseError {
            // Another rowcastd serves the path: 75, as for a state directory in use; a lock
            // file that cannot be made is 73, as for a state directory that cannot be written.
            logger.critical("rowcastd cannot start", metadata: ["error": "\(error.underlying)"])
            Self.printError("rowcastd: cannot start: \(error.underlying)")
            throw ExitCode((error.underlying as! SocketInUseError).isHeld ? 75 : 73)
        } catch let error as DaemonStartError
            where error.underlying is KeyFileError || error.underlying is SocketPermissionError
        {
            // A key file or socket permission problem is configuration: 78, no restart loop.
            logger.critical("rowcastd cannot start", metadata: ["error": "\(error.underlying)"])
            Self.printError("rowcastd: cannot start: \(error.underlying)")
            throw ExitCode(78)
        } catch let error as StoreError {
            logger.critical("rowcastd stopped on an error of its state", metadata: ["error": "\(error.message)"])
            Self.printError("rowcastd: stopped: \(error.message)")
            throw ExitCode(error.exitStatus)
        } catch {
            logger.critical("rowcastd failed", metadata: ["error": "\(error)"])
            Self.printError("rowcastd: \(error)")
            throw ExitCode(1)
        }
    }

    /// --check-config with CURVE on: the server key file (when it exists; otherwise it is
    /// generated at start) must be usable; the client key files are listed, refused ones with why.
    private static func checkCurve(_ configuration: DaemonConfiguration) throws {
        let path = ServerKeyPair.path(for: configuration)
        if access(path, F_OK) == 0 {
            do {
                let pair = try ServerKeyPair.load(path)
                print("# curve: server key \(pair.publicKey) from \(path)")
            } catch {
                printError("rowcastd: invalid configuration: \(error)")
                throw ExitCode(78)
            }
        } else {
            print("# curve: no \(path) yet; rowcastd generates it at start")
        }
        let keyring = ClientKeyring.load(directory: configuration.curveClientsDirectory)
        print(
            "# curve: \(keyring.clientsByName.count) client(s) admitted: \(keyring.clientsByName.keys.sorted().joined(separator: ", "))"
        )
        for problem in keyring.problems { print("# curve: refused: \(problem)") }
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// The directory of this executable, then `../lib/rowcast/plugins` beside it: those of the
    /// two that exist (a directory named explicitly with --plugins must exist).
    static func defaultPluginDirectories() -> [String] {
        guard let directory = ExecutableLocation.directory() else { return ["/usr/local/lib/rowcast/plugins"] }
        let parent = directory.split(separator: "/").dropLast().joined(separator: "/")
        return [directory, "/" + parent + "/lib/rowcast/plugins"].filter { access($0, R_OK | X_OK) == 0 }
    }

    /// `rowcast-plugin-host` next to this executable, when it is there.
    static func defaultPluginHost() -> String? {
        ExecutableLocation.sibling("rowcast-plugin-host")
    }
}
