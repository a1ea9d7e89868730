import Hummingbird
import HummingbirdWebSocket

extension FeedGateway {
    /// `GET /feeds/NAME/stream[?since=SEQ&epoch=E]`: a WebSocket when the request is an
    /// upgrade, else Server-Sent Events (``EventStreamMiddleware``). Both send the same
    /// messages: the opening (a snapshot, or the deltas after `since` when the gateway's
    /// history covers them), a position, then every delta, action event and position as it
    /// comes. A connection whose queue overflows gets an `overflow` event and is closed.
    func installStreamRoute(on router: Router<BasicWebSocketRequestContext>) {
        router.group("feeds/:feed/stream")
            .add(middleware: EventStreamMiddleware(gateway: self))
            .ws("") { request, context throws -> RouterShouldUpgrade in
                // Without a valid token: upgraded to be told why, the feed not looked up.
                if await self.lacksValidToken(request) { return .upgrade([:]) }
                _ = try await self.streamTarget(request, context)
                _ = try Self.windowParameter(request)
                return .upgrade([:])
            } onUpgrade: { inbound, outbound, context in
                // Checked (and the feed found) before the upgrade; only read again here.
                let (feed, resume) = try await self.streamTarget(
                    context.request, context.requestContext, requiringFeed: false)
                // The token is checked after the upgrade, so that a browser, which sees no HTTP
                // status of a refused upgrade, is told why (``refuseWebSocket``).
                let credentials: ConnectionCredentials?
                do throws(GatewayError) {
                    credentials = try await self.authorize(context.request, feed: feed, permission: .read)
                } catch {
                    return try await self.refuseWebSocket(feed: feed, error, outbound: outbound)
                }
                if let window = try Self.windowParameter(context.request) {
                    // A window moves with `move` messages: the socket's protocol, this feed
                    // subscribed.
                    let session = SocketSession(gateway: self, credentials: credentials)
                    try await session.run(inbound: inbound, outbound: outbound, initial: (feed, window))
                    return
                }
                try await self.serveWebSocket(
                    feed: feed, resume: resume, credentials: credentials, inbound: inbound, outbound: outbound)
            }
    }

    /// The feed and resume point a stream request asks for, checked: 400 for a bad name or
    /// `since`, 404 (when `requiringFeed`) for a feed rowcastd does not have.
    func streamTarget(
        _ request: Request, _ context: some RequestContext, requiringFeed: Bool = true
    ) async throws(GatewayError) -> (String, ResumePoint?) {
        let feed = try Self.feedParameter(context)
        let query = request.uri.queryParameters
        let resume = try ResumePoint.parse(since: query.get("since"), epoch: query.get("epoch"))
        if requiringFeed { try await requireFeed(feed) }
        return (feed, resume)
    }

    /// Sends the feed's messages on a WebSocket until either side closes or its token expires;
    /// of the browser's own messages, token refreshes are answered, the others ignored.
    func serveWebSocket(
        feed: String, resume: ResumePoint?, credentials: ConnectionCredentials? = nil,
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        let (hub, id, outbox) = try attach(feed: feed, resume: resume)
        let watch = expiryWatch(credentials, outbox: outbox)
        metrics?.connectionOpened(kind: "websocket")
        defer {
            watch?.cancel()
            hub.detach(id)
            metrics?.connectionClosed()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // Reads the browser's messages (token refreshes); ends when it closes.
                for try await message in inbound.messages(maxSize: 16 * 1024) {
                    guard case .text(let text) = message else { continue }
                    _ = try await self.answerTokenMessage(
                        text, credentials: credentials, feed: feed, outbound: outbound)
                }
            }
            group.addTask {
                for await text in outbox.messages {
                    if outbox.hasOverflowed { break }
                    try await outbound.write(.text(text))
                    self.metrics?.sent(byteCount: text.utf8.count)
                }
                if outbox.hasOverflowed {
                    self.metrics?.overflowed()
                    try await outbound.write(.text(StreamMessages.overflow(feed: feed, limit: outbox.limit)))
                    try await outbound.close(.policyViolation, reason: "send buffer full; resume with since")
                } else if let credentials, credentials.hasExpired() {
                    try await outbound.write(.text(TokenMessages.expired(feed: feed)))
                    try await outbound.close(.policyViolation, reason: "token_expired")
                } else {
                    try await outbound.close(.goingAway, reason: "the gateway is stopping")
                }
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// The Server-Sent Events body of a stream: each message as `data: <json>` and a blank
    /// line, until the browser goes or the queue ends. The connection is attached when the
    /// body is written, so a response never written holds no queue.
    func eventStreamBody(feed: String, resume: ResumePoint?, credentials: ConnectionCredentials? = nil) -> ResponseBody
    {
        ResponseBody { writer in
            let (hub, id, outbox) = try self.attach(feed: feed, resume: resume)
            let watch = self.expiryWatch(credentials, outbox: outbox)
            self.metrics?.connectionOpened(kind: "sse")
            defer {
                watch?.cancel()
                hub.detach(id)
                self.metrics?.connectionClosed()
            }
            try await self.writeEvents(of: outbox, feed: feed, credentials: credentials, to: &writer)
        }
    }

    /// Writes `outbox`'s messages as `data: <json>` events until it ends, then the reason it
    /// ended when it is the client's (`overflow`, or `token_expired`), and finishes.
    func writeEvents(
        of outbox: ConnectionOutbox, feed: String, credentials: ConnectionCredentials?,
        to writer: inout any ResponseBodyWriter
    ) async throws {
        for await text in outbox.messages {
            if outbox.hasOverflowed { break }
            try await writer.write(ByteBuffer(string: "data: \(text)\n\n"))
            metrics?.sent(byteCount: text.utf8.count)
        }
        if outbox.hasOverflowed {
            metrics?.overflowed()
            try await writer.write(
                ByteBuffer(string: "data: \(StreamMessages.overflow(feed: feed, limit: outbox.limit))\n\n"))
        } else if let credentials, credentials.hasExpired() {
            try await writer.write(ByteBuffer(string: "data: \(TokenMessages.expired(feed: feed))\n\n"))
        }
        try await writer.finish(nil)
    }
}
