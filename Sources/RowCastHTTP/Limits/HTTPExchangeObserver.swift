import NIOCore
import NIOHTTPTypes

/// Watches the decoded requests and the answers of an HTTP connection (it sits behind the HTTP
/// codec) and tells the connection's `HTTPConnectionGuard`, with an outbound user event, when a
/// head was decoded and when every request read so far has been read whole and answered: the
/// guard's idle deadline starts then. Requests are answered in order, so a count suffices.
///
/// A non-`Sendable` class: NIO calls it on its channel's event loop only.
final class HTTPExchangeObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What the observer (and `HTTPParseErrorCatcher`) tell the guard.
    enum Event: Equatable, Sendable {
        /// A request head was decoded.
        case headDecoded
        /// Every request read so far was read whole and answered.
        case exchangesFinished
        /// The decoder found the request malformed (`headerOverflow`: its header fields over
        /// the decoder's limit).
        case malformed(headerOverflow: Bool)
    }

    /// Requests whose head was read and whose answer has not ended.
    private var unanswered = 0
    /// Whether a request's body is still arriving.
    private var readingRequest = false

    /// An observer of a new connection.
    init() {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unanswered += 1
            readingRequest = true
            context.triggerUserOutboundEvent(Event.headDecoded, promise: nil)
        case .body:
            break
        case .end:
            readingRequest = false
            reportIfFinished(context)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
        if case .end = unwrapOutboundIn(data) {
            unanswered = max(0, unanswered - 1)
            reportIfFinished(context)
        }
    }

    private func reportIfFinished(_ context: ChannelHandlerContext) {
        if unanswered == 0, !readingRequest {
            context.triggerUserOutboundEvent(Event.exchangesFinished, promise: nil)
        }
    }
}

@available(*, unavailable)
extension HTTPExchangeObserver: Sendable {}
