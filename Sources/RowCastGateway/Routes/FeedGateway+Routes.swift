import Hummingbird
import HummingbirdWebSocket

extension FeedGateway {
    /// Installs every gateway route on `router` (served with
    /// `.http1WebSocketUpgrade(webSocketRouter: router)`):
    ///
    /// - `GET /`: the feeds, as a page;
    /// - `GET /feeds/NAME`: the feed, live, as a table view;
    /// - `GET /feeds/NAME/stream`: the snapshot, then the deltas, positions and action events,
    ///   over a WebSocket, or as Server-Sent Events for a request that is not an upgrade
    ///   (`?since=SEQ&epoch=E` resumes);
    ///   (`?limit=N` with `offset`, `after` or `around` follows a window of it instead);
    /// - `GET /socket`: a WebSocket of JSON messages, subscribing to feeds and windows;
    /// - `POST /feeds/NAME/rows/ID/select`: the row's action, as `rowcast select`;
    /// - `GET /assets/gateway.css`, `GET /assets/gateway.js`, `GET /assets/gateway-window.js`,
    ///   `GET /assets/rows.js`: the pages' own style and modules; `GET /client.js`: the
    ///   JavaScript client library, which both pages import.
    public func installRoutes(on router: Router<BasicWebSocketRequestContext>) {
        installPageRoutes(on: router)
        installStreamRoute(on: router)
        installSelectRoute(on: router)
        installSocketRoute(on: router)
    }

    /// The feed name of the route's `:feed` parameter, checked.
    static func feedParameter(_ context: some RequestContext) throws(GatewayError) -> String {
        guard let feed = context.parameters.get("feed") else { throw .badRequest("the path names no feed") }
        guard FeedNameRule.isValid(feed) else { throw .badRequest(FeedNameRule.problem(with: feed)) }
        return feed
    }

    /// Throws 404 unless `feed` exists in rowcastd (or errors the daemon gave, mapped).
    func requireFeed(_ feed: String) async throws(GatewayError) {
        if knowsFeedExists(feed) { return }
        let exists: Bool
        do {
            exists = try await queries.exists(feed: feed)
        } catch {
            throw DaemonErrorStatus.gatewayError(for: error)
        }
        guard exists else {
            throw GatewayError(
                status: .notFound, code: "not_found",
                message:
                    "feed \"\(feed)\" does not exist in rowcastd at \(options.controlEndpoint); publish an item to it first, or see GET / for the feeds there"
            )
        }
    }
}
