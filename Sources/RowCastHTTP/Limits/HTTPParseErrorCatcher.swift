import NIOCore
import NIOHTTP1

/// Catches the HTTP decoder's errors while a connection's first request is being negotiated
/// (before Hummingbird takes the connection over, and before it knows whether the request
/// upgrades to a WebSocket), when nothing else would: without it, a malformed first request
/// was held open unanswered. It tells the connection's `HTTPConnectionGuard`, which answers 400
/// (431 for header fields over the decoder's limit) and closes; later errors Hummingbird
/// answers itself. The error goes on down the pipeline either way.
///
/// Inbound only, and it reads nothing it passes on, so it may stay after a WebSocket upgrade.
/// A non-`Sendable` class: NIO calls it on its channel's event loop only.
final class HTTPParseErrorCatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart

    /// A catcher for a new connection.
    init() {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError {
            let event = HTTPExchangeObserver.Event.malformed(headerOverflow: error == .headerOverflow)
            context.triggerUserOutboundEvent(event, promise: nil)
        }
        context.fireErrorCaught(error)
    }
}

@available(*, unavailable)
extension HTTPParseErrorCatcher: Sendable {}
