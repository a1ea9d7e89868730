import CoreMetrics
import RowCastSupport

/// What the web gateway counts for `/metrics` (docs/OPERATIONS.md, "Metrics"): its
/// connections and replicas now, and the messages, bytes, slow connections and selects so far.
/// Created through the factory it is given (`rowcast serve`'s registry, or rowcastd's when the
/// gateway rides on its HTTP endpoint); every method may be called from any task.
public final class GatewayMetrics: Sendable {
    /// The metrics' names and HELP texts, for the exporter.
    public static let descriptions: [(name: String, help: String)] = [
        (Names.connections, "Stream connections (WebSocket and Server-Sent Events) open now."),
        (Names.connectionsOpened, "Stream connections opened, by kind (websocket, sse)."),
        (Names.windows, "Windows of feeds followed now (over streams and /socket)."),
        (Names.replicas, "Feeds the gateway keeps a replica of now (each kept a minute after its last connection)."),
        (Names.messages, "Messages written to stream connections (snapshots, deltas, positions, events)."),
        (Names.bytes, "Bytes of those messages."),
        (Names.overflows, "Connections closed for a full send queue (a client too slow for its feed)."),
        (Names.selects, "Row actions run through POST .../select, by outcome: ok or the daemon's error code."),
        (
            Names.tokenFailures,
            "User tokens refused, by reason: token_missing, token_expired (streams ended too), token_invalid, token_user_changed, forbidden."
        ),
    ]

    /// The metric names.
    public enum Names {
        /// Gauge of open stream connections.
        public static let connections = "rowcast_gateway_connections"
        /// Counter of connections opened, by `kind`.
        public static let connectionsOpened = "rowcast_gateway_connections_opened_total"
        /// Gauge of windows followed.
        public static let windows = "rowcast_gateway_windows"
        /// Gauge of replicas kept.
        public static let replicas = "rowcast_gateway_replicas"
        /// Counter of messages sent.
        public static let messages = "rowcast_gateway_messages_sent_total"
        /// Counter of bytes sent.
        public static let bytes = "rowcast_gateway_bytes_sent_total"
        /// Counter of connections closed for overflowing.
        public static let overflows = "rowcast_gateway_overflows_total"
        /// Counter of selects, by `outcome`.
        public static let selects = "rowcast_gateway_selects_total"
        /// Counter of token refusals, by `reason`.
        public static let tokenFailures = "rowcast_gateway_token_failures_total"
    }

    private let factory: any MetricsFactory
    private let open: Gauge
    private let replicaGauge: Gauge
    private let messages: Counter
    private let bytes: Counter
    private let overflows: Counter
    private let openConnections = LockedValue(0)
    private let windowGauge: Gauge
    private let openWindows = LockedValue(0)

    /// Metrics created through `factory`.
    public init(factory: any MetricsFactory) {
        self.factory = factory
        open = Gauge(label: Names.connections, factory: factory)
        replicaGauge = Gauge(label: Names.replicas, factory: factory)
        windowGauge = Gauge(label: Names.windows, factory: factory)
        windowGauge.record(0)
        messages = Counter(label: Names.messages, factory: factory)
        bytes = Counter(label: Names.bytes, factory: factory)
        overflows = Counter(label: Names.overflows, factory: factory)
        open.record(0)
        replicaGauge.record(0)
    }

    /// A stream connection of `kind` (`websocket` or `sse`) opened.
    func connectionOpened(kind: String) {
        Counter(label: Names.connectionsOpened, dimensions: [("kind", kind)], factory: factory).increment()
        // Recorded under the lock, so an open and a close at once are recorded in order.
        openConnections.withLock { count in
            count += 1
            open.record(count)
        }
    }

    /// A stream connection closed.
    func connectionClosed() {
        openConnections.withLock { count in
            count -= 1
            open.record(count)
        }
    }

    /// A window was opened (`+1`) or closed (`-1`).
    func windows(_ change: Int) {
        openWindows.withLock { count in
            count += change
            windowGauge.record(count)
        }
    }

    /// A message of `byteCount` bytes went to a connection.
    func sent(byteCount: Int) {
        messages.increment()
        bytes.increment(by: byteCount)
    }

    /// A connection was closed for overflowing.
    func overflowed() {
        overflows.increment()
    }

    /// `count` replicas are kept now.
    func replicas(_ count: Int) {
        replicaGauge.record(count)
    }

    /// A select ended with `outcome` (`ok` or an error code).
    func selected(outcome: String) {
        Counter(label: Names.selects, dimensions: [("outcome", outcome)], factory: factory).increment()
    }

    /// A user token was refused (or a stream's expired) for `reason`.
    func tokenRefused(reason: String) {
        Counter(label: Names.tokenFailures, dimensions: [("reason", reason)], factory: factory).increment()
    }
}
