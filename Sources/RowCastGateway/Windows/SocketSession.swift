import Hummingbird
import HummingbirdWebSocket
import RowCastJSON
import RowCastSupport

/// One WebSocket connection of the message protocol (docs/PROTOCOL.md, "The socket"): the
/// client subscribes to feeds (whole, or a window of each) and moves, unsubscribes and sends
/// tokens with JSON messages; every feed's messages share one bounded queue, written in order.
/// A connection whose queue overflows gets `overflow` and is closed, as a stream is.
final class SocketSession: Sendable {
    /// What one feed's subscription on this connection is.
    enum Subscription: Sendable {
        /// The whole feed: a connection of the feed's hub.
        case whole(hub: FeedHub, id: Int)
        /// A window: a window of the feed's hub.
        case window(hub: FeedHub, id: Int)
    }

    /// The most feeds one connection follows at once.
    static let maximumFeeds = 64

    /// The gateway.
    private let gateway: FeedGateway
    /// The queue every subscription's messages go to.
    let outbox: ConnectionOutbox
    /// What token messages do.
    private let tokens: any SocketTokenHook
    /// The user token the connection runs under (nil: tokens are off); each subscription
    /// needs `read` on its feed.
    private let credentials: ConnectionCredentials?
    /// The subscriptions, by feed.
    private let subscriptions = LockedValue<[String: Subscription]>([:])

    /// A connection of `gateway` with a queue of the gateway's connection buffer.
    init(gateway: FeedGateway, credentials: ConnectionCredentials? = nil) {
        self.gateway = gateway
        outbox = ConnectionOutbox(limit: gateway.options.connectionBuffer)
        self.credentials = credentials
        tokens = credentials.map { CredentialsTokenHook(credentials: $0, metrics: gateway.metrics) } ?? TokensOff()
    }

    /// Serves the connection until either side closes: reads the client's messages, writes
    /// the queue. `initial` is a window subscribed at once (a windowed `/feeds/NAME/stream`).
    func run(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, initial: (String, WindowRequest)? = nil
    ) async throws {
        gateway.metrics?.connectionOpened(kind: "websocket")
        let expiry = gateway.expiryWatch(credentials, outbox: outbox)
        defer {
            expiry?.cancel()
            unsubscribeAll()
            gateway.metrics?.connectionClosed()
        }
        if let (feed, window) = initial { await subscribe(feed: feed, window: window, resume: nil) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await message in inbound.messages(maxSize: 64 * 1024) {
                    guard case .text(let text) = message else {
                        self.send(Self.error("invalid_request", "send JSON text messages, not binary ones"))
                        continue
                    }
                    await self.handle(text)
                }
            }
            group.addTask {
                for await text in self.outbox.messages {
                    if self.outbox.hasOverflowed { break }
                    try await outbound.write(.text(text))
                    self.gateway.metrics?.sent(byteCount: text.utf8.count)
                }
                if self.outbox.hasOverflowed {
                    self.gateway.metrics?.overflowed()
                    let feeds = self.subscriptions.withLock { $0.keys.sorted().joined(separator: ",") }
                    try await outbound.write(.text(StreamMessages.overflow(feed: feeds, limit: self.outbox.limit)))
                    try await outbound.close(.policyViolation, reason: "send buffer full; subscribe again with since")
                } else if let credentials = self.credentials, credentials.hasExpired() {
                    try await outbound.write(
                        .text(
                            TokenMessages.closed(
                                feed: "", reason: "token_expired",
                                message: "user \"\(credentials.user)\"'s token expired; connect again with a fresh one")
                        ))
                    try await outbound.close(.policyViolation, reason: "token_expired")
                } else {
                    try await outbound.close(.goingAway, reason: "the gateway is stopping")
                }
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// Handles one client message.
    func handle(_ text: String) async {
        guard text.utf8.count <= 64 * 1024, let message = try? JSONParser.parse(text), message.objectValue != nil else {
            send(Self.error("invalid_json", "each message must be one JSON object"))
            return
        }
        let type = message["type"]?.stringValue ?? ""
        let feed = message["feed"]?.stringValue
        do throws(GatewayError) {
            switch type {
            case "subscribe":
                let feed = try Self.feedName(feed)
                let window = try message["window"].map { (value) throws(GatewayError) in
                    try WindowRequest.parse(json: value)
                }
                let resume = try Self.resume(message)
                try checkGrant(feed)  // before the feed is looked up: no token learns what exists
                try await gateway.requireFeed(feed)
                await subscribe(feed: feed, window: window, resume: resume)
            case "move":
                let feed = try Self.feedName(feed)
                guard let value = message["window"] else { throw .badRequest("move needs \"window\"") }
                let window = try WindowRequest.parse(json: value)
                guard case .window(let hub, let id)? = subscriptions.withLock({ $0[feed] }) else {
                    throw GatewayError(
                        status: .conflict, code: "not_subscribed",
                        message: "this connection follows no window of feed \(feed); subscribe with \"window\" first")
                }
                if !hub.moveWindow(id, to: window) {
                    throw GatewayError(
                        status: .conflict, code: "not_subscribed", message: "the window of feed \(feed) is closed")
                }
            case "unsubscribe":
                let feed = try Self.feedName(feed)
                unsubscribe(feed)
                send(["event": "unsubscribed", "feed": .string(feed)])
            case "token":
                guard let token = message["token"]?.stringValue else {
                    throw .badRequest("token needs \"token\": a string")
                }
                send(await tokens.refreshToken(token))
                dropUngrantedFeeds()
            default:
                throw .badRequest(
                    "\"type\" must be subscribe, move, unsubscribe or token, not \"\(type.prefix(40))\"")
            }
        } catch {
            var object: JSONObject = [
                "event": "error", "code": .string(error.code), "message": .string(error.message),
                "type": .string(String(type.prefix(40))),
            ]
            if let feed { object.append(key: "feed", value: .string(String(feed.prefix(200)))) }
            send(.object(object))
        }
    }

    /// Follows `feed` (whole, or the window), replacing what this connection followed of it.
    /// Throws 403 `forbidden` when the connection's token does not grant `read` on `feed`.
    private func checkGrant(_ feed: String) throws(GatewayError) {
        guard let credentials, !credentials.grant.allows(.read, feed: feed) else { return }
        gateway.metrics?.tokenRefused(reason: "forbidden")
        throw GatewayError(
            status: .forbidden, code: "forbidden",
            message: "user \"\(credentials.user)\"'s token does not grant read on feed \"\(feed)\"")
    }

    /// After a token refresh: stops following every feed the token in force no longer grants
    /// `read` on, telling the client with a `forbidden` error for each.
    private func dropUngrantedFeeds() {
        guard let credentials else { return }
        let grant = credentials.grant
        let feeds = subscriptions.withLock { $0.keys.filter { !grant.allows(.read, feed: $0) } }
        for feed in feeds.sorted() {
            unsubscribe(feed)
            gateway.metrics?.tokenRefused(reason: "forbidden")
            send(
                Self.error(
                    "forbidden", "the token in force does not grant read on feed \"\(feed)\": it is no longer followed",
                    feed: feed))
        }
    }

    private func subscribe(feed: String, window: WindowRequest?, resume: ResumePoint?) async {
        unsubscribe(feed)
        let count = subscriptions.withLock { $0.count }
        guard count < Self.maximumFeeds else {
            send(Self.error("limit_exceeded", "one connection follows at most \(Self.maximumFeeds) feeds", feed: feed))
            return
        }
        do throws(GatewayError) {
            let subscription: Subscription
            if let window {
                let (hub, id) = try gateway.withHub(feed: feed) {
                    $0.attachWindow(window, outbox: outbox, ownsOutbox: false)
                }
                subscription = .window(hub: hub, id: id)
                gateway.metrics?.windows(1)
            } else {
                let (hub, id) = try gateway.withHub(feed: feed) { $0.attach(resume: resume, sharing: outbox) }
                subscription = .whole(hub: hub, id: id)
            }
            subscriptions.withLock { $0[feed] = subscription }
        } catch {
            send(Self.error(error.code, error.message, feed: feed))
        }
    }

    /// Stops following `feed`.
    private func unsubscribe(_ feed: String) {
        switch subscriptions.withLock({ $0.removeValue(forKey: feed) }) {
        case .whole(let hub, let id)?: hub.detach(id)
        case .window(let hub, let id)?:
            hub.detachWindow(id)
            gateway.metrics?.windows(-1)
        case nil: break
        }
    }

    /// Stops following every feed (the connection ends).
    private func unsubscribeAll() {
        for feed in subscriptions.withLock({ Array($0.keys) }) { unsubscribe(feed) }
    }

    /// Queues a message of the connection's own.
    private func send(_ message: JSONValue) {
        outbox.offer(message.jsonText)
    }

    /// `{"event":"error","code","message"[,"feed"]}`.
    static func error(_ code: String, _ message: String, feed: String? = nil) -> JSONValue {
        var object: JSONObject = ["event": "error", "code": .string(code), "message": .string(message)]
        if let feed { object.append(key: "feed", value: .string(feed)) }
        return .object(object)
    }

    /// The message's `feed`, checked.
    private static func feedName(_ feed: String?) throws(GatewayError) -> String {
        guard let feed else { throw .badRequest("the message needs \"feed\": a feed name") }
        guard FeedNameRule.isValid(feed) else { throw .badRequest(FeedNameRule.problem(with: feed)) }
        return feed
    }

    /// The message's `since` and `epoch`, checked as a stream's query parameters are.
    private static func resume(_ message: JSONValue) throws(GatewayError) -> ResumePoint? {
        var since: String?
        if let value = message["since"] {
            guard let seq = value.intValue else { throw .badRequest("\"since\" must be an integer seq") }
            since = String(seq)
        }
        var epoch: String?
        if let value = message["epoch"], !value.isNull {
            guard let text = value.stringValue else { throw .badRequest("\"epoch\" must be a string") }
            epoch = text
        }
        return try ResumePoint.parse(since: since, epoch: epoch)
    }
}
