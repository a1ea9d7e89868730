#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// The first handler of every HTTP connection, ahead of the HTTP decoder: it sees the raw bytes
/// and applies `HTTPConnectionLimits` through an `HTTPConnectionState` (head deadline and size,
/// idle close, write stall), learning from `HTTPExchangeObserver` (behind the decoder) when
/// requests are decoded and answered. It stays after a WebSocket upgrade, where only the write
/// stall applies. A connection over the per-peer cap (`refused`) is closed as it becomes active.
///
/// A non-`Sendable` class: NIO calls it on its channel's event loop only.
final class HTTPConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// Where limit hits are counted and logged.
    private let limiter: HTTPConnectionLimiter
    /// The peer's address, for log lines ("unix" on a Unix socket).
    private let peer: String
    /// Whether the connection is over the per-peer cap and is to be closed at once.
    private let refused: Bool
    /// The deadlines; set when the handler is added.
    private var state: HTTPConnectionState?
    /// The timer of `state.deadline`, and the deadline it was scheduled for.
    private var timer: (task: Scheduled<Void>, deadline: NIODeadline)?

    /// A guard applying `limiter`'s limits to a connection from `peer`.
    init(limiter: HTTPConnectionLimiter, peer: String, refused: Bool = false) {
        self.limiter = limiter
        self.peer = peer
        self.refused = refused
    }

    func handlerAdded(context: ChannelHandlerContext) {
        var state = HTTPConnectionState(limits: limiter.limits, openedAt: context.eventLoop.now)
        if !context.channel.isWritable { state.writabilityChanged(isWritable: false, at: context.eventLoop.now) }
        self.state = state
        if refused {
            if context.channel.isActive { context.close(promise: nil) }
            return
        }
        schedule(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        if refused { context.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state?.closed()
        cancelTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard var state else { return context.fireChannelRead(data) }
        let buffer = unwrapInboundIn(data)
        let action = state.received(buffer.readableBytesView, at: context.eventLoop.now)
        self.state = state
        switch action {
        case .forward:
            context.fireChannelRead(data)
        case .discard:
            break
        case .refuseTooLarge:
            limiter.report(.headTooLarge, peer: peer)
            answer(context, HTTPGuardAnswer.tooLarge(limiter.limits))
        }
        schedule(context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        state?.writabilityChanged(isWritable: context.channel.isWritable, at: context.eventLoop.now)
        schedule(context)
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event, state?.inputClosed() == true {
            cancelTimer()
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let exchange = event as? HTTPExchangeObserver.Event else {
            return context.triggerUserOutboundEvent(event, promise: promise)
        }
        switch exchange {
        case .headDecoded: state?.headDecoded()
        case .exchangesFinished: state?.exchangesFinished(at: context.eventLoop.now)
        case .malformed(let headerOverflow):
            if state?.malformed(at: context.eventLoop.now) == true {
                if headerOverflow { limiter.report(.headTooLarge, peer: peer) }
                answer(context, headerOverflow ? HTTPGuardAnswer.tooLarge(limiter.limits) : HTTPGuardAnswer.malformed)
            }
        }
        promise?.succeed()
        schedule(context)
    }

    /// Writes `response`, closes the output, and lingers (`HTTPConnectionState`).
    private func answer(_ context: ChannelHandlerContext, _ response: ByteBuffer) {
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(response)), promise: nil)
        context.close(mode: .output, promise: nil)
    }

    /// Closes at once with a reset (SO_LINGER 0), so that neither the descriptor nor the kernel's
    /// buffers stay held for a client that does not read (nginx's `reset_timedout_connection`).
    private func reset(_ context: ChannelHandlerContext) {
        guard let socket = context.channel as? any SocketOptionProvider else { return context.close(promise: nil) }
        let channel = context.channel
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Runs what is due now.
    private func fire(_ context: ChannelHandlerContext) {
        timer = nil
        guard var state else { return }
        let action = state.timerFired(at: context.eventLoop.now)
        self.state = state
        switch action {
        case .none:
            break
        case .answerTimeout:
            limiter.report(.headTimeout, peer: peer)
            answer(context, HTTPGuardAnswer.timeout(limiter.limits))
        case .closeSilent:
            limiter.report(.headTimeout, peer: peer)
            context.close(promise: nil)
        case .closeIdle, .close:
            context.close(promise: nil)
        case .resetStalled:
            limiter.report(.writeStalled, peer: peer)
            reset(context)
        }
        schedule(context)
    }

    /// Keeps one timer at `state.deadline`.
    private func schedule(_ context: ChannelHandlerContext) {
        let deadline = state?.deadline
        if let timer, timer.deadline == deadline { return }
        cancelTimer()
        guard let deadline else { return }
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in fire(context) }
        timer = (task, deadline)
    }

    private func cancelTimer() {
        timer?.task.cancel()
        timer = nil
    }
}

@available(*, unavailable)
extension HTTPConnectionGuard: Sendable {}
