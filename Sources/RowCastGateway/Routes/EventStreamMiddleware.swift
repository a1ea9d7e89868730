import Hummingbird
import HummingbirdWebSocket

/// Serves a stream request that is not a WebSocket upgrade as Server-Sent Events
/// (`text/event-stream`); passes upgrades on to the WebSocket route.
struct EventStreamMiddleware: RouterMiddleware {
    /// The gateway whose feeds are streamed.
    let gateway: FeedGateway

    /// Answers a plain GET with the event stream; anything else goes on.
    func handle(
        _ request: Request, context: BasicWebSocketRequestContext,
        next: (Request, BasicWebSocketRequestContext) async throws -> Response
    ) async throws -> Response {
        let upgrade = request.headers[.upgrade]?.lowercased() ?? ""
        guard request.method == .get, !upgrade.contains("websocket") else { return try await next(request, context) }
        let credentials = try await gateway.authorize(
            request, feed: try FeedGateway.feedParameter(context), permission: .read)
        let (feed, resume) = try await gateway.streamTarget(request, context)
        let window = try FeedGateway.windowParameter(request)
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"],
            body: window.map { gateway.windowStreamBody(feed: feed, window: $0, credentials: credentials) }
                ?? gateway.eventStreamBody(feed: feed, resume: resume, credentials: credentials))
    }
}
