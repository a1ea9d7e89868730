import Hummingbird
import HummingbirdWebSocket
import Logging
import RowCastClient
import RowCastSupport
import ServiceLifecycle
import ZeroMQ

/// The web gateway: one replica per feed, fanned out to browsers as an HTML page, a WebSocket
/// and Server-Sent Events, and a row's action as an HTTP POST (docs/PROTOCOL.md, "The web
/// gateway").
///
/// Install its routes on a router served with `.http1WebSocketUpgrade(webSocketRouter:)`, and
/// run it as a `Service` (it keeps the replicas, retires idle ones, and stops them all on
/// graceful shutdown):
///
/// ```swift
/// let gateway = try FeedGateway(options: GatewayOptions(controlEndpoint: ..., publishEndpoint: ...))
/// let router = Router(context: BasicWebSocketRequestContext.self)
/// gateway.installRoutes(on: router)
/// let app = Application(router: router, server: .http1WebSocketUpgrade(webSocketRouter: router), ...)
/// try await ServiceGroup(services: [gateway, app], ...).run()
/// ```
///
/// `@unchecked Sendable`: the hubs are behind `hubs`' lock, the rest is immutable.
public final class FeedGateway: Service, @unchecked Sendable {
    /// How the gateway reaches rowcastd and bounds each connection.
    public let options: GatewayOptions
    /// The log.
    let logger: Logger
    /// The ZeroMQ context every socket of the gateway is made on.
    let context: Context
    /// The requests besides replicas.
    let queries: DaemonQueries
    /// The other cluster nodes' publishers, which every replica follows too.
    let publishers: ClusterPublishers
    /// The hubs, by feed; `nil` once stopped.
    private let hubs = LockedValue<[String: FeedHub]?>([:])
    /// What it counts, when ``GatewayOptions/metricsFactory`` is set.
    let metrics: GatewayMetrics?

    /// A gateway that reaches rowcastd as `options` say; nothing connects before a browser
    /// asks for a feed.
    public init(options: GatewayOptions, logger: Logger = Logger(label: "rowcast.gateway")) throws(RowCastClientError) {
        self.options = options
        self.logger = logger
        do {
            context = try Context()
        } catch {
            throw RowCastClientError(code: "socket_error", message: "cannot create a ZeroMQ context: \(error)")
        }
        queries = DaemonQueries(options: options, context: context)
        publishers = ClusterPublishers(options: options, context: context)
        metrics = options.metricsFactory.map(GatewayMetrics.init(factory:))
    }

    /// Keeps the replicas until graceful shutdown (or cancellation), retiring those no
    /// connection followed for ``GatewayOptions/idleReplicaLifetime``; then stops them all
    /// and ends every connection.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                self.retireIdleHubs()
            }
        }
        for hub in stop() { await hub.ended() }
    }

    /// Stops every replica and ends every connection's stream (each within the control
    /// timeout, without waiting here); later requests get 503.
    @discardableResult
    public func stop() -> [FeedHubHandle] {
        let stopped = hubs.withLock { hubs in
            defer { hubs = nil }
            return Array((hubs ?? [:]).values)
        }
        metrics?.replicas(0)
        for hub in stopped { hub.stop() }
        return stopped.map(FeedHubHandle.init)
    }

    /// How many connections follow `feed` now (0 when no replica of it is kept).
    public func connectionCount(feed: String) -> Int {
        hubs.withLock { $0?[feed] }?.connectionCount ?? 0
    }

    /// How many connections of `feed` were closed because they fell too far behind.
    public func overflowCount(feed: String) -> Int {
        hubs.withLock { $0?[feed] }?.overflowCount ?? 0
    }

    /// A new connection to `feed`'s hub (started on first interest), starting after `resume`,
    /// with a queue of ``GatewayOptions/connectionBuffer`` messages. Done under the hubs' lock,
    /// so a hub being retired never takes a connection.
    func attach(
        feed: String, resume: ResumePoint?
    ) throws(GatewayError) -> (hub: FeedHub, id: Int, outbox: ConnectionOutbox) {
        let limit = options.connectionBuffer
        let (hub, (id, outbox)) = try withHub(feed: feed) { $0.attach(resume: resume, limit: limit) }
        return (hub, id, outbox)
    }

    /// Calls `body` with `feed`'s hub (started on first interest) under the hubs' lock, so a
    /// hub being retired never takes a connection; 503 once the gateway stops.
    func withHub<T>(feed: String, _ body: (FeedHub) -> T) throws(GatewayError) -> (FeedHub, T) {
        let attached = hubs.withLock { hubs -> (FeedHub, T)? in
            guard hubs != nil else { return nil }
            let hub: FeedHub
            if let existing = hubs![feed] {
                hub = existing
            } else {
                hub = FeedHub(feed: feed, options: options, context: context, publishers: publishers, logger: logger)
                hubs![feed] = hub
                metrics?.replicas(hubs!.count)
                hub.start()
            }
            return (hub, body(hub))
        }
        guard let attached else {
            throw GatewayError(
                status: .serviceUnavailable, code: "stopping",
                message: "the gateway is stopping; connect again to another")
        }
        return attached
    }

    /// Whether a replica of `feed` is kept and holds a feed that exists.
    func knowsFeedExists(_ feed: String) -> Bool {
        hubs.withLock { $0?[feed] }?.feedExists ?? false
    }

    /// Stops the hubs without connections for longer than the idle lifetime.
    private func retireIdleHubs() {
        let lifetime = options.idleReplicaLifetime
        let idle = hubs.withLock { hubs -> [FeedHub] in
            guard let current = hubs else { return [] }
            let idle = current.values.filter { $0.isIdle(for: lifetime) }
            for hub in idle { hubs![hub.feed] = nil }
            if !idle.isEmpty { metrics?.replicas(hubs!.count) }
            return idle
        }
        for hub in idle {
            logger.debug("retiring the idle replica", metadata: ["feed": "\(hub.feed)"])
            hub.stop()
        }
    }
}
