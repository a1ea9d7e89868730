import HummingbirdCore
import Logging
import NIOCore

/// A Hummingbird server child channel (`inner`, HTTP/1 with WebSocket upgrades) with an
/// `HTTPConnectionGuard` put first in each connection's pipeline, ahead of the HTTP decoder,
/// and each connection counted against its peer address's cap.
struct LimitedHTTPChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    /// The child channel whose pipeline is guarded.
    let inner: Inner
    /// The limits, the per-peer counts and the log lines.
    let limiter: HTTPConnectionLimiter

    /// Counts the connection against its peer, adds the guard, then sets up `inner`. A
    /// connection over the cap is set up too (a failed setup is an error of the listening
    /// channel, not of this connection), and its guard closes it as soon as it is active.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let limiter = self.limiter
        let address = channel.remoteAddress?.ipAddress
        let admitted = address.map(limiter.admit) ?? true
        if admitted, let address {
            channel.closeFuture.whenComplete { _ in limiter.release(address) }
        }
        do {
            let guardHandler = HTTPConnectionGuard(limiter: limiter, peer: address ?? "unix", refused: !admitted)
            try channel.pipeline.syncOperations.addHandler(guardHandler, position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Behind the decoder and the upgrade handler, which pass errors on.
            try channel.pipeline.syncOperations.addHandler(HTTPParseErrorCatcher())
            return value
        }
    }

    /// Serves the connection as `inner` does, its lines about this one client written at
    /// `debug` at most (`LogLevelCeiling`), and closes it when `inner` returns: a first request
    /// whose negotiation failed was left open before.
    func handle(value: Value, logger: Logger) async {
        let quiet = Logger(label: logger.label, factory: { _ in LogLevelCeiling(logger.handler, ceiling: .debug) })
        await inner.handle(value: value, logger: quiet)
        try? await value.channel.close()
    }
}
