import Hummingbird
import HummingbirdWebSocket
import RowCastClient

extension FeedGateway {
    /// How many rows a feed's page holds before its script runs.
    static let firstPaintRows = 50
    /// The most rows a feed's page keeps whole; a larger feed's page follows a window of it
    /// as the user scrolls (``GatewayWindowScript``).
    static let wholeFeedPageRows = 2_000

    /// `GET /`, `GET /feeds/NAME`, the pages' assets and `/client.js`.
    func installPageRoutes(on router: Router<BasicWebSocketRequestContext>) {
        router.get("/") { request, _ async -> Response in
            let credentials: ConnectionCredentials?
            do throws(GatewayError) {
                credentials = try await self.authorize(request, feed: nil, permission: .read)
            } catch {
                return self.html(GatewayPages.problem(error), status: error.status)
            }
            do throws(RowCastClientError) {
                let status = Self.readableStatus(try await self.queries.status(), for: credentials)
                return self.html(
                    GatewayPages.index(
                        status: status, control: self.options.controlEndpoint,
                        token: Self.addressToken(request, credentials: credentials)),
                    status: .ok)
            } catch {
                let problem = DaemonErrorStatus.gatewayError(for: error)
                return self.html(GatewayPages.problem(problem), status: problem.status)
            }
        }
        router.get("feeds/:feed") { request, context async -> Response in
            do throws(GatewayError) {
                let feed = try Self.feedParameter(context)
                let credentials = try await self.authorize(request, feed: feed, permission: .read)
                try await self.requireFeed(feed)
                // The first rows are in the page itself, readable before its script runs; a
                // failure to get them costs only that.
                let first = try? await self.queries.firstWindow(feed: feed, limit: Self.firstPaintRows)
                return self.html(
                    GatewayPages.feed(
                        feed, firstSections: first?.sections ?? [],
                        windowed: (first?.total ?? 0) > Self.wholeFeedPageRows, total: first?.total ?? 0,
                        token: Self.addressToken(request, credentials: credentials)),
                    status: .ok)
            } catch {
                return self.html(GatewayPages.problem(error), status: error.status)
            }
        }
        router.get("assets/gateway.css") { _, _ -> Response in
            Self.asset(GatewayStyle.text, type: "text/css; charset=utf-8")
        }
        router.get("assets/gateway.js") { _, _ -> Response in
            Self.asset(GatewayScript.text, type: "text/javascript; charset=utf-8")
        }
        router.get("assets/gateway-window.js") { _, _ -> Response in
            Self.asset(GatewayWindowScript.text, type: "text/javascript; charset=utf-8")
        }
        router.get("assets/rows.js") { _, _ -> Response in
            Self.asset(GatewayRowsScript.text, type: "text/javascript; charset=utf-8")
        }
        router.get("client.js") { _, _ -> Response in
            Self.asset(GatewayClientScript.text, type: "text/javascript; charset=utf-8")
        }
    }

    /// The `access_token` of `request`'s address when it is the token the page was let in
    /// with (tokens on, no `Authorization` header): the page's links carry it on.
    static func addressToken(_ request: Request, credentials: ConnectionCredentials?) -> String? {
        guard credentials != nil, request.headers[.authorization] == nil else { return nil }
        return request.uri.queryParameters.get("access_token")
    }

    /// An HTML response; the page may load only the gateway's own style and script and
    /// images from the configured origins, connect only back to the gateway, and be framed by
    /// no page (its action buttons would be clickable through another site's page).
    func html(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: Self.pagePolicy(imageOrigins: options.imageOrigins),
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The pages' Content-Security-Policy, images allowed from `imageOrigins` besides the
    /// gateway itself.
    static func pagePolicy(imageOrigins: [String]) -> String {
        let images = (["'self'", "data:"] + imageOrigins).joined(separator: " ")
        return
            "default-src 'self'; script-src 'self'; img-src \(images); connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    }

    /// A static asset of the page.
    static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
