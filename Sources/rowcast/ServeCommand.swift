import ArgumentParser
import Dispatch
import Hummingbird
import HummingbirdWebSocket
import Logging
import RowCastClient
import RowCastGateway
import Prometheus
import RowCastHTTP
import RowCastSupport
import ServiceLifecycle
import UnixSignals

/// `rowcast serve`: the web gateway as a process of its own, next to browsers and far from
/// rowcastd (docs/OPERATIONS.md, "The web gateway").
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the feeds to browsers: live pages, a WebSocket and SSE stream, row actions.",
        discussion: """
            Connects to rowcastd like the other commands (--control, --publish, CURVE keys) \
            and serves HTTP on --http: GET / lists the feeds, GET /feeds/NAME shows one live \
            as a table view, GET /feeds/NAME/stream sends its snapshot and deltas over a \
            WebSocket (or Server-Sent Events; ?since=SEQ&epoch=E resumes), and \
            POST /feeds/NAME/rows/ID/select runs a row's action as rowcast select does. \
            One replica per feed serves every connection; a connection that falls \
            --connection-buffer messages behind is closed and resumes from the gateway's \
            history. When it listens it prints one line: \
            rowcast serve ready http=http://HOST:PORT control=... publish=...

            With --token-secret-file (HS256) or --token-public-key-file (ES256, RS256) every \
            page, stream and select needs a user token (a JWT: Authorization: Bearer TOKEN, \
            or ?access_token=TOKEN), whose feeds claim says what its user may read and select; \
            selects run as that user (rowcastd then needs act_as for the gateway's key). \
            Without a key it listens on loopback only: anyone who reaches it can read every \
            feed it can and run their rows' actions with its key. It serves plain HTTP: \
            beyond loopback, put it behind a proxy that terminates TLS. \
            Web pages the user opens cannot reach it: a request must name it by an IP \
            address, localhost or an --allowed-host name (else 421), and streams and row \
            actions must come from its own page or an --allowed-origin (else 403). SIGINT or \
            SIGTERM stops it; open streams are closed.

            No one client can starve it: a request head must arrive within --header-timeout \
            (else 408) and be at most 32 KiB (else 431), kept-alive connections close after \
            --idle-timeout, a connection that takes no data for --write-timeout is reset, and \
            one address may hold --max-connections-per-peer connections. Each limit hit is \
            logged on standard error, at most one line of a kind every ten seconds.

            Examples:
              rowcast serve
              rowcast serve --http 127.0.0.1:0 --control tcp://feeds.example:7702 --publish tcp://feeds.example:7703
              rowcast serve --allowed-host feeds.example.com --allowed-origin https://app.example.com
              rowcast serve --header-timeout 10 --max-connections-per-peer 16
              rowcast serve --token-secret-file /etc/rowcast/gateway-token.secret
            """
    )

    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var publishEndpoint: PublishEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Option(
        help: ArgumentHelp(
            "Where to serve HTTP: HOST:PORT, or tcp://HOST:PORT as rowcastd's --http takes it (port 0: any free port). Beyond loopback, anyone who reaches it can read the feeds.",
            valueName: "host:port"))
    var http = "127.0.0.1:8080"

    @Option(
        help: ArgumentHelp(
            "How many messages one connection may have waiting before it is closed as too slow (it then resumes).",
            valueName: "messages"))
    var connectionBuffer = 1024

    @Option(
        help: ArgumentHelp(
            "How many recent deltas each feed keeps for connections that resume with since.", valueName: "deltas"))
    var history = 1000

    @Option(
        name: .customLong("allowed-host"),
        help: ArgumentHelp(
            "A host name to serve besides IP addresses and localhost (.example.com: it and every name under it; *: any, which gives up the DNS-rebinding check); repeat for several.",
            valueName: "name"))
    var allowedHosts: [String] = []

    @Option(
        name: .customLong("allowed-origin"),
        help: ArgumentHelp(
            "An origin (https://app.example.com) whose pages may stream feeds and run row actions, besides the gateway's own; repeat for several.",
            valueName: "origin"))
    var allowedOrigins: [String] = []

    @Option(
        name: .customLong("image-origin"),
        help: ArgumentHelp(
            "An origin (https://img.example.com) the page may load row images from; repeat for several. Without, rows show their image's initial.",
            valueName: "origin"))
    var imageOrigins: [String] = []

    @Option(
        help: ArgumentHelp(
            "Seconds a request's line and headers may take to arrive (from the connection's start, or a later request's first byte); a late one is answered 408 and closed.",
            valueName: "seconds"))
    var headerTimeout: Double = 60

    @Option(
        help: ArgumentHelp(
            "Seconds a kept-alive connection may wait for its next request (or a request body for its next part) before it is closed.",
            valueName: "seconds"))
    var idleTimeout: Double = 60

    @Option(
        help: ArgumentHelp(
            "Seconds a connection may take no data while data waits for it (a stream whose browser stopped reading) before it is reset.",
            valueName: "seconds"))
    var writeTimeout: Double = 30

    @Option(
        help: ArgumentHelp(
            "How many connections one client address may hold at once; the next one is closed (and logged).",
            valueName: "connections"))
    var maxConnectionsPerPeer = 64

    @Option(
        name: .customLong("token-secret-file"),
        help: ArgumentHelp(
            "A file holding an HS256 secret (32 bytes or more) that user tokens may be signed with; repeat to accept several while rotating.",
            valueName: "file"))
    var tokenSecretFiles: [String] = []

    @Option(
        name: .customLong("token-public-key-file"),
        help: ArgumentHelp(
            "A PEM public key (P-256 for ES256, RSA for RS256) that user tokens may be signed for; repeat to accept several while rotating.",
            valueName: "file"))
    var tokenPublicKeyFiles: [String] = []

    @Option(
        name: .customLong("token-audience"),
        help: ArgumentHelp(
            "Take only user tokens whose \"aud\" (a string or a list) names this audience.", valueName: "audience"))
    var tokenAudience: String?

    @Option(
        name: .customLong("token-issuer"),
        help: ArgumentHelp("Take only user tokens whose \"iss\" is this issuer.", valueName: "issuer"))
    var tokenIssuer: String?

    @Option(
        help: ArgumentHelp(
            "Whether pages, streams and selects need a user token: auto (when a token key is given, and always beyond loopback), required, or off (behind a proxy that authenticates users).",
            valueName: "auto|required|off"))
    var tokens: TokenMode = .auto

    @Flag(
        help: ArgumentHelp(
            "Accept tokens over plain HTTP beyond loopback: only behind a proxy that terminates TLS, on a network trusted between the two."
        ))
    var allowPlainHTTPTokens = false

    func validate() throws {
        let lists: [(flag: String, values: [String], problem: (String) -> String?)] = [
            ("--allowed-host", allowedHosts, HTTPOriginPolicy.problem(withHost:)),
            ("--allowed-origin", allowedOrigins, HTTPOriginPolicy.problem(withOrigin:)),
            ("--image-origin", imageOrigins, HTTPOriginPolicy.problem(withOrigin:)),
        ]
        for list in lists {
            if let problem = list.values.lazy.compactMap(list.problem).first {
                throw ValidationError("\(list.flag): \(problem)")
            }
        }
        do {
            _ = try HTTPAddress(parsing: http)
        } catch {
            throw ValidationError(error.description)
        }
        for (flag, seconds) in [
            ("--header-timeout", headerTimeout), ("--idle-timeout", idleTimeout), ("--write-timeout", writeTimeout),
        ] where !(seconds >= 0.1 && seconds <= 86_400) {
            throw ValidationError("\(flag) must be a number of seconds from 0.1 to 86400, got \(seconds)")
        }
        guard maxConnectionsPerPeer >= 1 else {
            throw ValidationError("--max-connections-per-peer must be at least 1 connection")
        }
        guard connectionBuffer >= 1 else { throw ValidationError("--connection-buffer must be at least 1 message") }
        guard history >= 0 else { throw ValidationError("--history must be 0 or more deltas") }
    }

    func run() throws {
        let address = try HTTPAddress(parsing: http)
        var options: GatewayOptions?
        try reportingErrors {
            options = GatewayOptions(
                controlEndpoint: controlEndpoint.control, publishEndpoint: publishEndpoint.publish,
                curve: try connection.curve(), timeout: connection.timeoutDuration,
                connectionBuffer: connectionBuffer, historyDeltas: history)
            options?.imageOrigins = imageOrigins
        }
        guard var options else { return }
        options.tokens = try loadTokenKeys(isLoopback: address.isLoopback)
        if !address.isLoopback && options.tokens == nil {
            Output.note(
                "warning: serving on \(address.host):\(address.port), beyond loopback, with --tokens off: anyone who reaches the gateway can read every feed its connection may read and run their rows' actions. Put it behind a proxy with TLS and authentication, or use --http 127.0.0.1:PORT."
            )
        }
        let outcome = LockedValue<Result<Void, any Error>>(.success(()))
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await Self.serve(
                    options: options, address: address,
                    policy: HTTPOriginPolicy(allowedHosts: allowedHosts, allowedOrigins: allowedOrigins),
                    limits: limits)
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        if case .failure(let error) = outcome.withLock({ $0 }) {
            Output.error(RowCastClientError(code: "serve_failed", message: "\(error)"))
            throw ExitCode.failure
        }
    }

    /// The token keys when tokens are required (``TokenMode``), else nil. A setup that would
    /// serve without the tokens it needs, or a key that cannot be used, stops the command with
    /// one line naming the flag or the file (exit status 78).
    func loadTokenKeys(isLoopback: Bool) throws -> TokenVerifier? {
        let required: Bool
        switch tokens.requiresTokens(
            hasKeys: !(tokenSecretFiles.isEmpty && tokenPublicKeyFiles.isEmpty), isLoopback: isLoopback,
            plainHTTPAllowed: allowPlainHTTPTokens)
        {
        case .success(let answer): required = answer
        case .failure(let problem):
            Output.error(RowCastClientError(code: "tokens_required", message: problem.message))
            throw ExitCode(78)
        }
        guard required else { return nil }
        let outcome = LockedValue<Result<TokenVerifier, TokenKeyError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let (secrets, publicKeys) = (tokenSecretFiles, tokenPublicKeyFiles)
        let (audience, issuer) = (tokenAudience, tokenIssuer)
        Task {
            do throws(TokenKeyError) {
                let verifier = try await TokenVerifier.load(
                    secretFiles: secrets, publicKeyFiles: publicKeys, audience: audience, issuer: issuer)
                outcome.withLock { $0 = .success(verifier) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        switch outcome.withLock({ $0 }) {
        case .success(let verifier): return verifier
        case .failure(let error):
            Output.error(RowCastClientError(code: "invalid_token_key", message: error.message))
            throw ExitCode(78)
        case nil: return nil
        }
    }

    /// The connection limits the flags give.
    var limits: HTTPConnectionLimits {
        HTTPConnectionLimits(
            headerTimeout: .seconds(fractional: headerTimeout), idleTimeout: .seconds(fractional: idleTimeout),
            writeTimeout: .seconds(fractional: writeTimeout), maxConnectionsPerPeer: maxConnectionsPerPeer)
    }

    /// Runs the gateway and its HTTP server until SIGINT or SIGTERM.
    static func serve(
        options: GatewayOptions, address: HTTPAddress, policy: HTTPOriginPolicy, limits: HTTPConnectionLimits
    ) async throws {
        var logger = Logger(label: "rowcast.serve") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .notice
        let registry = PrometheusCollectorRegistry()
        var measured = options
        measured.metricsFactory = DescribedPrometheusFactory(
            registry: registry,
            descriptions: GatewayMetrics.descriptions.map { MetricDescription($0.name, help: $0.help) })
        let gateway = try FeedGateway(options: measured, logger: logger)
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.add(middleware: HTTPOriginMiddleware(policy: policy))
        MetricsRoute.installer(registry)(router)
        gateway.installRoutes(on: router)
        let app = Application(
            router: router,
            server: .limitedHTTP1WebSocketUpgrade(
                webSocketRouter: router, limiter: HTTPConnectionLimiter(limits: limits, logger: logger)),
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "rowcast-serve"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? address.port
                let host = address.host.contains(":") ? "[\(address.host)]" : address.host
                Output.line(
                    "rowcast serve ready http=http://\(host):\(port) control=\(options.controlEndpoint) publish=\(options.publishEndpoint)"
                )
            },
            logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: gateway), .init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
    }
}

extension TokenMode: ExpressibleByArgument {}
