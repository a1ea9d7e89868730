import Hummingbird
import HummingbirdWebSocket

/// Adds routes to rowcastd's HTTP endpoint before it starts serving: how other targets (the web
/// gateway) put their pages, WebSocket routes and APIs beside `/metrics` and `/healthz`.
/// Called once, on the router the endpoint serves with `.http1WebSocketUpgrade`.
public typealias RouteInstaller = @Sendable (Router<BasicWebSocketRequestContext>) -> Void
