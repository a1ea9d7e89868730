import Hummingbird
import HummingbirdWebSocket
import RowCastClient

extension FeedGateway {
    /// `GET /`, `GET /feeds/NAME` and the two assets.
    func installPageRoutes(on router: Router<BasicWebSocketRequestContext>) {
        router.get("/") { _, _ async -> Response in
            do throws(RowCastClientError) {
                let status = try await self.queries.status()
                return Self.html(GatewayPages.index(status: status, control: self.options.controlEndpoint), status: .ok)
            } catch {
                let problem = DaemonErrorStatus.gatewayError(for: error)
                return Self.html(GatewayPages.problem(problem), status: problem.status)
            }
        }
        router.get("feeds/:feed") { _, context async -> Response in
            do throws(GatewayError) {
                let feed = try Self.feedParameter(context)
                try await self.requireFeed(feed)
                return Self.html(GatewayPages.feed(feed), status: .ok)
            } catch {
                return Self.html(GatewayPages.problem(error), status: error.status)
            }
        }
        router.get("assets/gateway.css") { _, _ -> Response in
            Self.asset(GatewayStyle.text, type: "text/css; charset=utf-8")
        }
        router.get("assets/gateway.js") { _, _ -> Response in
            Self.asset(GatewayScript.text, type: "text/javascript; charset=utf-8")
        }
    }

    /// An HTML response; the page may load only the gateway's own style and script, connect
    /// only back to the gateway, and be framed by no page (its action buttons would be
    /// clickable through another site's page).
    static func html(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy:
                    "default-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A static asset of the page.
    static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
