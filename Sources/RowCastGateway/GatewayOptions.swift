import CoreMetrics
import RowCastClient

/// How a ``RowCastGateway`` reaches rowcastd and bounds what each browser costs.
public struct GatewayOptions: Sendable {
    /// The daemon's control endpoint (ROUTER): snapshots, `since`, `select`, `status`.
    public var controlEndpoint: String
    /// The daemon's publish endpoint (PUB): deltas, positions, action events.
    public var publishEndpoint: String
    /// CURVE credentials for both sockets, or `nil` for a plain connection.
    public var curve: CurveCredentials?
    /// How long to wait for each reply of the daemon.
    public var timeout: Duration
    /// How many messages one connection may have queued, unsent, before it is closed as too
    /// slow (it then resumes with `since`).
    public var connectionBuffer: Int
    /// How many recent deltas each feed keeps for connections that resume with `since`.
    public var historyDeltas: Int
    /// How often a feed with connections sends them its position.
    public var positionInterval: Duration
    /// How long a feed's replica is kept after its last connection left.
    public var idleReplicaLifetime: Duration
    /// Origins (`https://img.example.com`) the page may load row images from; none by default,
    /// and then a row shows its image's initial instead.
    public var imageOrigins: [String] = []
    /// The keys of the user tokens every stream, page and select must carry
    /// (docs/PROTOCOL.md, "User tokens"), or nil when tokens are off.
    public var tokens: TokenVerifier?
    /// Where the gateway's metrics are created (``GatewayMetrics``), or nil for none.
    public var metricsFactory: (any MetricsFactory)?

    /// Options with the daemon's default endpoints and the documented bounds.
    public init(
        controlEndpoint: String = RowCastEndpoints.control, publishEndpoint: String = RowCastEndpoints.publish,
        curve: CurveCredentials? = nil, timeout: Duration = .seconds(5), connectionBuffer: Int = 1024,
        historyDeltas: Int = 1000, positionInterval: Duration = .seconds(1),
        idleReplicaLifetime: Duration = .seconds(60)
    ) {
        self.controlEndpoint = controlEndpoint
        self.publishEndpoint = publishEndpoint
        self.curve = curve
        self.timeout = timeout
        self.connectionBuffer = connectionBuffer
        self.historyDeltas = historyDeltas
        self.positionInterval = positionInterval
        self.idleReplicaLifetime = idleReplicaLifetime
    }
}
