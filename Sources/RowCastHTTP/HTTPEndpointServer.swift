import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// rowcastd's HTTP endpoint: a Hummingbird application on SwiftNIO's own threads, serving
/// the routes its installers put on one `Router<BasicWebSocketRequestContext>` (with WebSocket
/// upgrades, for the gateway). Nothing it does runs on, or waits for, the daemon's loop thread:
/// handlers read only what is safe to read from any thread (atomics, locked values).
public struct HTTPEndpointServer: Sendable {
    /// Where it listens.
    public let endpoint: HTTPEndpoint
    /// Which requests it serves by where they come from (`Host` is not checked on a Unix
    /// socket).
    public let policy: HTTPOriginPolicy
    /// What one client may hold of it: head deadline and size, idle and write timeouts,
    /// connections per address.
    public let limits: HTTPConnectionLimits
    /// The routes, installed in order.
    public let installers: [RouteInstaller]
    /// Where the server logs.
    public let logger: Logger

    /// A server for `endpoint` with the routes `installers` add, under `policy` and `limits`.
    public init(
        endpoint: HTTPEndpoint, policy: HTTPOriginPolicy = HTTPOriginPolicy(),
        limits: HTTPConnectionLimits = HTTPConnectionLimits(), installers: [RouteInstaller], logger: Logger
    ) {
        self.endpoint = endpoint
        self.limits = limits
        var policy = policy
        if case .unix = endpoint { policy.checksHost = false }
        self.policy = policy
        self.installers = installers
        self.logger = logger
    }

    /// Binds and starts serving; returns once the socket listens (with the address bound), or
    /// throws `HTTPEndpointStartError` naming the endpoint when it cannot be bound.
    public func start() async throws(HTTPEndpointStartError) -> RunningHTTPEndpoint {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.add(middleware: HTTPOriginMiddleware(policy: policy))
        for install in installers { install(router) }
        let address: BindAddress
        switch endpoint {
        case .tcp(let host, let port): address = .hostname(host, port: port)
        case .unix(let path): address = .unixDomainSocket(path: path)
        }
        let listening = OneShot<String>()
        let endpoint = self.endpoint
        let app = Application(
            router: router,
            server: .limitedHTTP1WebSocketUpgrade(
                webSocketRouter: router, limiter: HTTPConnectionLimiter(limits: limits, logger: logger)),
            configuration: ApplicationConfiguration(address: address, serverName: nil),
            onServerRunning: { channel in
                listening.resolve(.success(Self.describe(channel.localAddress, endpoint: endpoint)))
            },
            logger: logger
        )
        // A group of its own, detached: the server must not inherit the daemon group's graceful
        // shutdown, so it answers /healthz ("draining") until the loop has stopped; `stop()`
        // shuts this group down.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], logger: logger))
        let task = Task.detached {
            do {
                try await group.run()
                listening.resolve(
                    .failure(
                        HTTPEndpointStartError(endpoint: endpoint, reason: "the server stopped before it listened")))
            } catch {
                listening.resolve(.failure(HTTPEndpointStartError(endpoint: endpoint, reason: "\(error)")))
            }
        }
        switch await listening.value {
        case .success(let bound):
            return RunningHTTPEndpoint(address: bound, group: group, task: task)
        case .failure(let error):
            task.cancel()
            _ = await task.value
            throw error
        }
    }

    /// `tcp://127.0.0.1:7780` or `ipc:///path` for the address a channel bound.
    static func describe(_ address: SocketAddress?, endpoint: HTTPEndpoint) -> String {
        guard case .tcp = endpoint, let address, let port = address.port, let ip = address.ipAddress else {
            return endpoint.description
        }
        return ip.contains(":") ? "tcp://[\(ip)]:\(port)" : "tcp://\(ip):\(port)"
    }
}

/// The HTTP endpoint could not start: the endpoint and why (the address in use, say).
public struct HTTPEndpointStartError: Error, Sendable, CustomStringConvertible {
    /// The endpoint that was to be bound.
    public let endpoint: HTTPEndpoint
    /// What went wrong, as SwiftNIO said it.
    public let reason: String

    /// `cannot listen on tcp://... (endpoints.http): reason`.
    public var description: String { "cannot listen on \(endpoint) (endpoints.http): \(reason)" }
}
