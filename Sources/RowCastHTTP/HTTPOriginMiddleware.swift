import HTTPTypes
import Hummingbird

/// Applies an `HTTPOriginPolicy` to every request of a router, and gives every response the
/// headers that keep browsers from sniffing its type or framing it. Add it to the router
/// before any route: Hummingbird applies a middleware to the routes added after it.
public struct HTTPOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The policy applied.
    public let policy: HTTPOriginPolicy

    /// A middleware applying `policy`.
    public init(policy: HTTPOriginPolicy) { self.policy = policy }

    /// Refuses what the policy refuses; adds the headers to every response, errors included.
    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let upgrade = request.headers[.upgrade]?.lowercased() ?? ""
        let parts = HTTPOriginPolicy.Request(
            method: request.method.rawValue, path: request.uri.path, host: request.head.authority,
            origin: request.headers[.origin], fetchSite: request.headers[.secFetchSite],
            upgradesToWebSocket: upgrade.contains("websocket"))
        if case .refuse(let status, let message) = policy.verdict(for: parts) {
            context.logger.notice(
                "HTTP request refused",
                metadata: [
                    "status": "\(status)", "path": "\(request.uri.path)", "host": "\(parts.host ?? "")",
                    "origin": "\(parts.origin ?? "")",
                ])
            return Self.secured(Self.refusal(status: status, message: message))
        }
        do {
            return Self.secured(try await next(request, context))
        } catch let error as any HTTPResponseError {
            return Self.secured(try error.response(from: request, context: context))
        }
    }

    /// `response` with `nosniff`, no framing, no referrer, and a content security policy that
    /// allows nothing when the response set none of its own (only pages set one).
    static func secured(_ response: Response) -> Response {
        var response = response
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.referrerPolicy] = "no-referrer"
        if response.headers[.contentSecurityPolicy] == nil {
            response.headers[.contentSecurityPolicy] = "default-src 'none'; frame-ancestors 'none'"
        }
        return response
    }

    /// `{"error":{"code":"misdirected_request"|"forbidden_origin"|"invalid_host","message"}}`
    /// with `status`.
    static func refusal(status: Int, message: String) -> Response {
        let code =
            switch status {
            case 421: "misdirected_request"
            case 403: "forbidden_origin"
            default: "invalid_host"
            }
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: [.contentType: "application/json; charset=utf-8", .connection: "close"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: errorBody(code: code, message: message))))
    }

    /// `{"error":{"code","message"}}` (`HTTPErrorBody`).
    static func errorBody(code: String, message: String) -> String {
        HTTPErrorBody.json(code: code, message: message)
    }
}

extension HTTPField.Name {
    /// `Sec-Fetch-Site`: where a browser says the request comes from.
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    /// `X-Frame-Options`.
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    /// `Referrer-Policy`.
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
