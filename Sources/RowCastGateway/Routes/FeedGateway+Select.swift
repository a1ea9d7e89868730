import Foundation
import Hummingbird
import HummingbirdWebSocket
import RowCastClient
import RowCastJSON

extension FeedGateway {
    /// The largest select body read, in bytes.
    static let maximumSelectBody = 64 * 1024

    /// `POST /feeds/NAME/rows/ID/select`, body empty or `{"action":"NAME","value":VALUE}`
    /// (both optional): runs the row's action through the control socket, as `rowcast select`
    /// does (same permissions: the gateway's key needs `select` on the feed), and answers with
    /// the daemon's reply, its error code mapped to an HTTP status (``DaemonErrorStatus``).
    func installSelectRoute(on router: Router<BasicWebSocketRequestContext>) {
        router.post("feeds/:feed/rows/:id/select") { request, context async throws -> Response in
            let feed = try Self.feedParameter(context)
            let credentials = try await self.authorize(request, feed: feed, permission: .select)
            guard let raw = context.parameters.get("id"), let id = raw.removingPercentEncoding, !id.isEmpty else {
                throw GatewayError.badRequest("the path names no row id: POST /feeds/NAME/rows/ID/select")
            }
            guard id.utf8.count <= 256 else {
                throw GatewayError.badRequest("row id is \(id.utf8.count) bytes; an id is at most 256 bytes")
            }
            guard Self.isJSON(request.headers[.contentType]) else {
                throw GatewayError(
                    status: .unsupportedMediaType, code: "invalid_request",
                    message:
                        "a select must be sent with Content-Type: application/json (a body of {\"action\":\"NAME\",\"value\":VALUE}, or none)"
                )
            }
            var request = request
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: Self.maximumSelectBody)
            } catch {
                throw GatewayError(
                    status: .contentTooLarge, code: "too_large",
                    message: "a select body is at most \(Self.maximumSelectBody) bytes")
            }
            let select = try Self.selectBody(Array(body.readableBytesView))
            let reply: JSONValue
            do throws(RowCastClientError) {
                reply = try await self.queries.select(
                    feed: feed, id: id, action: select.action, value: select.value, user: credentials?.user)
            } catch {
                self.metrics?.selected(outcome: error.code)
                let mapped = DaemonErrorStatus.gatewayError(for: error)
                let body =
                    error.reply ?? [
                        "ok": false, "error": ["code": .string(error.code), "message": .string(error.message)],
                    ]
                return Self.json(body, status: mapped.status)
            }
            self.metrics?.selected(outcome: "ok")
            return Self.json(reply, status: .ok)
        }
    }

    /// Whether a `Content-Type` names JSON (`application/json`, with parameters or not). A
    /// page of another origin can send a request of this type only after a CORS preflight,
    /// which the gateway never grants.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    /// The action a select body names (`select` for an empty body or none named) and the value
    /// it carries (nil for none; `null` counts as none, as in the protocol).
    static func selectBody(_ body: [UInt8]) throws(GatewayError) -> (action: String, value: JSONValue?) {
        guard body.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return ("select", nil) }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(body)
        } catch {
            throw GatewayError(
                status: .badRequest, code: "invalid_json",
                message:
                    "the select body is not JSON (\(error)); send nothing, or {\"action\":\"NAME\",\"value\":VALUE}")
        }
        guard let object = parsed.objectValue else {
            throw GatewayError.badRequest(
                "the select body is a \(parsed.kindName); send nothing, or an object {\"action\":\"NAME\",\"value\":VALUE}"
            )
        }
        for key in object.keys where key != "action" && key != "value" {
            throw GatewayError.badRequest(
                "the select body has an unknown member \"\(key)\"; it may have \"action\" and \"value\"")
        }
        // `.none`, not `nil`: JSONValue is itself expressible by `nil` (as `.null`).
        let value: JSONValue? = object["value"] == .some(.null) ? .none : object["value"]
        guard let member = object["action"] else { return ("select", value) }
        guard let action = member.stringValue, !action.isEmpty else {
            throw GatewayError.badRequest("\"action\" must be a non-empty string: an action name the row lists")
        }
        return (action, value)
    }

    /// `value` as a JSON response with `status`.
    static func json(_ value: JSONValue, status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: value.serialized())))
    }
}
