import Hummingbird
import HummingbirdWebSocket

extension FeedGateway {
    /// `GET /socket` (a WebSocket upgrade): the message protocol of docs/PROTOCOL.md ("The
    /// socket"), several feeds and windows over one connection. The Origin and Host checks
    /// apply to the upgrade as to every other.
    func installSocketRoute(on router: Router<BasicWebSocketRequestContext>) {
        router.ws("socket") { _, _ in
            .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            // With tokens on, the connection needs a valid one (any feed: each subscription is
            // checked against it); refused after the upgrade, so that a browser is told why.
            let credentials: ConnectionCredentials?
            do throws(GatewayError) {
                credentials = try await self.authorize(context.request, feed: nil, permission: .read)
            } catch {
                return try await self.refuseWebSocket(feed: "", error, outbound: outbound)
            }
            try await SocketSession(gateway: self, credentials: credentials).run(inbound: inbound, outbound: outbound)
        }
    }

    /// The window a stream request asks for with `limit` and `offset`, `after` or `around`,
    /// or `nil`; 400 for a bad one.
    static func windowParameter(_ request: Request) throws(GatewayError) -> WindowRequest? {
        let query = request.uri.queryParameters
        return try WindowRequest.parse(
            limit: query.get("limit"), offset: query.get("offset"), after: query.get("after"),
            around: query.get("around"))
    }

    /// The Server-Sent Events body of a window of `feed`: its `window` message, then its
    /// `window-update` and `window-position` messages as the feed changes. An `error` event
    /// (a row `after` or `around` names that is not in the feed) ends it.
    func windowStreamBody(feed: String, window: WindowRequest, credentials: ConnectionCredentials?) -> ResponseBody {
        ResponseBody { writer in
            let outbox = ConnectionOutbox(limit: self.options.connectionBuffer)
            let expiry = self.expiryWatch(credentials, outbox: outbox)
            defer { expiry?.cancel() }
            let (hub, id) = try self.withHub(feed: feed) {
                $0.attachWindow(window, outbox: outbox, ownsOutbox: true)
            }
            self.metrics?.connectionOpened(kind: "sse")
            self.metrics?.windows(1)
            defer {
                hub.detachWindow(id)
                self.metrics?.windows(-1)
                self.metrics?.connectionClosed()
            }
            try await self.writeEvents(of: outbox, feed: feed, credentials: credentials, to: &writer)
        }
    }
}
