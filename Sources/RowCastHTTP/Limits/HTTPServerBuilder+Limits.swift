import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import NIOCore

extension HTTPServerBuilder {
    /// HTTP/1 with WebSocket upgrades routed by `webSocketRouter` (as Hummingbird's
    /// `.http1WebSocketUpgrade(webSocketRouter:)`), every connection under `limiter`'s limits:
    /// an `HTTPConnectionGuard` ahead of the decoder, an `HTTPExchangeObserver` behind it,
    /// Hummingbird's idle timeout (which also bounds a request body that stops arriving) and the
    /// decoder's header limits set to the same bounds. Add every route to the router first.
    public static func limitedHTTP1WebSocketUpgrade(
        webSocketRouter: Router<BasicWebSocketRequestContext>, limiter: HTTPConnectionLimiter
    ) -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter.buildResponder()
        let limits = limiter.limits
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration(
            maxHeaderFieldSize: limits.maxHeadBytes, maxHeaderListSize: limits.maxHeadBytes)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [HTTPExchangeObserver()], idleTimeout: TimeAmount(limits.idleTimeout),
            httpDecoderConfiguration: decoder)
        return HTTPServerBuilder { responder in
            LimitedHTTPChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: HTTP1WebSocketUpgradeChannel.Configuration(http1: http1)),
                limiter: limiter)
        }
    }
}
