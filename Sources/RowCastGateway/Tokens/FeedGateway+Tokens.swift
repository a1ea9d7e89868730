import Foundation
import Hummingbird
import HummingbirdWebSocket
import RowCastJSON

extension FeedGateway {
    /// The credentials `request` carries, with `permission` on `feed` checked (any valid
    /// token will do for no feed); nil when tokens are off. A token comes in
    /// `Authorization: Bearer TOKEN` or, for EventSource, which cannot set headers, in the
    /// `access_token` query parameter. Throws 401 (`token_missing`, `token_expired`,
    /// `token_invalid`) or 403 `forbidden`, counted by reason.
    func authorize(
        _ request: Request, feed: String?, permission: TokenPermission
    ) async throws(GatewayError) -> ConnectionCredentials? {
        guard let verifier = options.tokens else { return nil }
        let grant: TokenGrant
        do throws(TokenRefusal) {
            guard let token = Self.bearerToken(request) else { throw .missing }
            grant = try await verifier.verify(token)
        } catch {
            metrics?.tokenRefused(reason: error.code)
            throw error.gatewayError
        }
        if let feed, !grant.allows(permission, feed: feed) {
            metrics?.tokenRefused(reason: "forbidden")
            throw GatewayError(
                status: .forbidden, code: "forbidden",
                message:
                    "user \"\(grant.user)\"'s token does not grant \(permission.rawValue) on feed \"\(feed)\"; its \"feeds\" claim needs a pattern that matches it with \"\(permission.rawValue)\""
            )
        }
        return ConnectionCredentials(grant, verifier: verifier)
    }

    /// Whether tokens are on and `request` carries none that is valid now (not counted: the
    /// upgraded connection's refusal is).
    func lacksValidToken(_ request: Request) async -> Bool {
        guard let verifier = options.tokens else { return false }
        guard let token = Self.bearerToken(request) else { return true }
        return (try? await verifier.verify(token)) == nil
    }

    /// `status` with only the feeds `credentials` may read (all of them without credentials),
    /// for the index page.
    static func readableStatus(_ status: JSONValue, for credentials: ConnectionCredentials?) -> JSONValue {
        guard let credentials else { return status }
        let grant = credentials.grant
        let feeds = (status["feeds"]?.arrayValue ?? []).filter { feed in
            feed["feed"]?.stringValue.map { grant.allows(.read, feed: $0) } ?? false
        }
        return ["feeds": .array(feeds)]
    }

    /// The token of `Authorization: Bearer TOKEN`, else of `?access_token=TOKEN`, else nil.
    static func bearerToken(_ request: Request) -> String? {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        if let query = request.uri.queryParameters.get("access_token"), !query.isEmpty { return query }
        return nil
    }

    /// A task that ends `outbox` when `credentials` expire, looking again each second, so a
    /// refreshed token moves the end. Nil without credentials; cancel it when the connection ends.
    func expiryWatch(_ credentials: ConnectionCredentials?, outbox: ConnectionOutbox) -> Task<Void, Never>? {
        guard let credentials else { return nil }
        let metrics = metrics
        return Task {
            while !Task.isCancelled {
                let left = credentials.expires.timeIntervalSinceNow
                if left <= 0 {
                    metrics?.tokenRefused(reason: "token_expired")
                    outbox.finish()
                    return
                }
                try? await Task.sleep(for: .seconds(min(left, 1)))
            }
        }
    }

    /// Ends an upgraded WebSocket whose token was refused: one `closed` event with the
    /// refusal's code as its `reason`, then close code 1008 with the code as its reason.
    func refuseWebSocket(feed: String, _ error: GatewayError, outbound: WebSocketOutboundWriter) async throws {
        try await outbound.write(.text(TokenMessages.closed(feed: feed, reason: error.code, message: error.message)))
        try await outbound.close(.policyViolation, reason: error.code)
    }

    /// Answers a WebSocket text message of the browser's when it is a token refresh,
    /// `{"type":"token","token":"..."}`: `{"type":"token","user","expires"}` once the fresh
    /// token is in force, or `{"type":"error","code","message"}` (the old token stays). Returns
    /// whether the message was a refresh; other messages are left to their own handlers.
    func answerTokenMessage(
        _ text: String, credentials: ConnectionCredentials?, feed: String, outbound: WebSocketOutboundWriter
    ) async throws -> Bool {
        guard let object = try? JSONParser.parse(text).objectValue, object["type"]?.stringValue == "token" else {
            return false
        }
        let reply: JSONValue
        if let credentials, let token = object["token"]?.stringValue {
            do throws(TokenRefusal) {
                // Checked before it is put in force: a token without `read` on the feed must
                // not move the stream's end (its expiry is the token's).
                let grant = try await credentials.check(token)
                if grant.allows(.read, feed: feed) {
                    credentials.install(grant)
                    reply = TokenMessages.refreshed(grant)
                } else {
                    metrics?.tokenRefused(reason: "forbidden")
                    reply = TokenMessages.error(
                        code: "forbidden",
                        message:
                            "the fresh token does not grant read on feed \"\(feed)\"; it was not taken, and the stream ends when the token in force expires"
                    )
                }
            } catch {
                metrics?.tokenRefused(reason: error.code)
                reply = TokenMessages.error(code: error.code, message: error.message)
            }
        } else if credentials == nil {
            reply = TokenMessages.error(
                code: "invalid_request", message: "this gateway has tokens off; nothing to refresh")
        } else {
            reply = TokenMessages.error(
                code: "invalid_field", message: "a token message is {\"type\":\"token\",\"token\":\"JWT\"}")
        }
        try await outbound.write(.text(reply.jsonText))
        return true
    }
}

/// The texts of the token protocol on a stream (docs/PROTOCOL.md, "User tokens").
enum TokenMessages {
    /// `{"type":"token","user","expires"}`: a fresh token is in force until `expires`
    /// (seconds since 1970).
    static func refreshed(_ grant: TokenGrant) -> JSONValue {
        [
            "type": "token", "user": .string(grant.user),
            "expires": .number(grant.expires.timeIntervalSince1970.rounded()),
        ]
    }

    /// `{"type":"error","code","message"}`: a token message refused.
    static func error(code: String, message: String) -> JSONValue {
        ["type": "error", "code": .string(code), "message": .string(message)]
    }

    /// `{"event":"closed","feed","reason":"token_expired","message"}`: the last message of a
    /// stream whose token expired.
    static func expired(feed: String) -> String {
        closed(
            feed: feed, reason: "token_expired",
            message: "the connection's token expired; connect again with a fresh one (or refresh it before it expires)")
    }

    /// `{"event":"closed","feed","reason","message"}`: the last message of a stream, ended
    /// for `reason` (a token refusal's code).
    static func closed(feed: String, reason: String, message: String) -> String {
        let event: JSONValue = [
            "event": "closed", "feed": .string(feed), "reason": .string(reason), "message": .string(message),
        ]
        return event.jsonText
    }
}
