import CoreMetrics
import Logging
import RowCastDaemon
import RowCastGateway
import RowCastHTTP

/// The web gateway served on rowcastd's own HTTP endpoint (beside `/metrics`, where its own
/// metrics appear too, and `/healthz`):
/// the same `FeedGateway` as `rowcast serve`, a client of this daemon's control and publish
/// sockets. It is served when the HTTP endpoint is on, CURVE is off (the gateway would need a
/// client key of its own: run `rowcast serve` with one instead) and both endpoints are fixed
/// (a wildcard port is only known once bound).
enum EmbeddedGateway {
    /// The gateway for `configuration`, or nil (with the reason logged) when it is not served;
    /// throws when it would serve without the user tokens it needs (`http_tokens`), or a token
    /// key cannot be used.
    static func make(
        _ configuration: DaemonConfiguration, metrics: (any MetricsFactory)?, logger: Logger
    ) async throws(TokenKeyError) -> FeedGateway? {
        guard servesGateway(configuration) else { return nil }
        if configuration.curve {
            logger.info(
                "the web gateway is not served on the HTTP endpoint with CURVE on; run `rowcast serve` with a client key"
            )
            return nil
        }
        // Checked first, so that a setup without the tokens it needs never starts.
        let tokens = try await checkedTokenVerifier(configuration)
        let wildcard = [configuration.controlEndpoint, configuration.publishEndpoint].first {
            $0.hasSuffix(":*") || $0.hasSuffix(":0")
        }
        if let wildcard {
            logger.info(
                "the web gateway is not served on the HTTP endpoint: it needs fixed control and publish endpoints",
                metadata: ["endpoint": "\(wildcard)"])
            return nil
        }
        do {
            var options = GatewayOptions(
                controlEndpoint: connectable(configuration.controlEndpoint),
                publishEndpoint: connectable(configuration.publishEndpoint))
            options.imageOrigins = configuration.httpImageOrigins
            options.metricsFactory = metrics
            options.tokens = tokens
            return try FeedGateway(options: options, logger: Logger(label: "rowcastd.gateway"))
        } catch {
            logger.warning("the web gateway is not served", metadata: ["reason": "\(error)"])
            return nil
        }
    }

    /// Whether `configuration` has an HTTP endpoint for the gateway (with CURVE on, it is not
    /// served: ``make(_:metrics:logger:)`` says why).
    static func servesGateway(_ configuration: DaemonConfiguration) -> Bool {
        !configuration.httpEndpoint.isEmpty
    }

    /// The token keys the gateway would serve with (nil: no gateway, or no tokens): what
    /// serving and `--check-config` both load, so that a key refused by one is by the other.
    static func checkedTokenVerifier(_ configuration: DaemonConfiguration) async throws(TokenKeyError) -> TokenVerifier?
    {
        guard servesGateway(configuration), !configuration.curve else { return nil }
        return try await tokenVerifier(configuration)
    }

    /// The token keys when `http_tokens` requires tokens (``TokenMode``), else nil. Beyond
    /// loopback (which rowcastd allows only with allow_insecure_tcp) tokens are required, and
    /// allow_insecure_tcp also stands for plain HTTP: rowcastd serves no TLS.
    static func tokenVerifier(_ configuration: DaemonConfiguration) async throws(TokenKeyError) -> TokenVerifier? {
        let mode = TokenMode(rawValue: configuration.httpTokens) ?? .auto
        let secrets = configuration.httpTokenSecretFiles
        let publicKeys = configuration.httpTokenPublicKeyFiles
        let flags = TokenFlags(
            secret: "http_token_secret_files (--http-token-secret-file)",
            publicKey: "http_token_public_key_files (--http-token-public-key-file)",
            mode: "http_tokens (--http-tokens)",
            plainHTTP: "allow_insecure_tcp")
        let required = try mode.requiresTokens(
            hasKeys: !(secrets.isEmpty && publicKeys.isEmpty),
            isLoopback: !EndpointExposure.isBeyondLoopback(configuration.httpEndpoint),
            plainHTTPAllowed: configuration.allowInsecureTCP,
            flags: flags
        ).get()
        guard required else { return nil }
        return try await TokenVerifier.load(
            secretFiles: secrets, publicKeyFiles: publicKeys, audience: configuration.httpTokenAudience,
            issuer: configuration.httpTokenIssuer, flags: flags)
    }

    /// The route installer that serves `gateway`.
    static func installer(_ gateway: FeedGateway) -> RouteInstaller {
        { router in gateway.installRoutes(on: router) }
    }

    /// A bound endpoint as a client connects to it: a wildcard address (`0.0.0.0`, `*`) as loopback.
    static func connectable(_ endpoint: String) -> String {
        endpoint.replacingOccurrences(of: "tcp://0.0.0.0:", with: "tcp://127.0.0.1:")
            .replacingOccurrences(of: "tcp://*:", with: "tcp://127.0.0.1:")
    }
}
