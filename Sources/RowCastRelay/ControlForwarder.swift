import ZeroMQ

/// The control half of a relay: a ROUTER bound for replicas and a DEALER connected to
/// rowcastd's control endpoint. Read-only requests (``RelayRequestFilter``) go upstream with
/// their client's envelope (``RelayEnvelope``) and every reply goes back to the client that
/// asked; anything else is answered at once with a refusal and never reaches rowcastd.
///
/// Built and run on one thread (the sockets belong to it); not `Sendable`.
final class ControlForwarder {
    /// Bound for replicas.
    private let router: Socket
    /// Connected to rowcastd.
    private let dealer: Socket
    /// Where ``Relay`` sends a message to stop the loop.
    private let stop: Socket
    /// The endpoint the ROUTER is bound to, with the port the system chose.
    let boundEndpoint: String
    /// rowcastd's control endpoint, for messages.
    private let upstream: String
    /// Counts shared with ``Relay``.
    private let counters: RelayCounters
    /// How many requests may wait for rowcastd.
    private let queue: Int

    /// Opens, connects and binds the sockets; `stopEndpoint` is the inproc address ``Relay``
    /// sends to when it stops.
    init(
        context: Context, configuration: RelayConfiguration, stopEndpoint: String, counters: RelayCounters
    ) throws(RelayError) {
        upstream = configuration.upstreamControl
        queue = configuration.upstreamQueue
        self.counters = counters
        do {
            dealer = try Socket(context: context, type: .dealer)
            try dealer.setOption(.linger, 0)
            try dealer.setOption(.sendHighWaterMark, configuration.upstreamQueue)
            if let curve = configuration.curve { try curve.apply(to: dealer) }
            try dealer.connect(upstream)
        } catch {
            throw .socket(error, "connect its DEALER to rowcastd's control endpoint", upstream)
        }
        do {
            router = try Socket(context: context, type: .router)
            try router.setOption(.linger, 0)
            try router.setOption(.maxMessageSize, Int64(configuration.maximumRequestBytes))
            try router.bind(configuration.control)
            boundEndpoint = try router.lastEndpoint
        } catch {
            throw .socket(error, "bind its control endpoint (ROUTER) to", configuration.control)
        }
        do {
            stop = try Socket(context: context, type: .pair)
            try stop.setOption(.linger, 0)
            try stop.bind(stopEndpoint)
        } catch {
            throw .socket(error, "bind its stop socket to", stopEndpoint)
        }
    }

    /// Forwards until a message arrives on the stop socket or the context is shut down, then
    /// closes the sockets.
    func run() throws(RelayError) {
        defer {
            router.close()
            dealer.close()
            stop.close()
        }
        let poller = Poller()
        poller.register(router)
        poller.register(dealer)
        poller.register(stop)
        do {
            while true {
                do {
                    _ = try poller.poll(timeoutMilliseconds: -1)
                } catch let error where error.isInterrupted {
                    continue
                }
                if poller.isReadable(stop) { return }
                if poller.isReadable(dealer) { try passRepliesDown() }
                if poller.isReadable(router) { try takeRequests() }
            }
        } catch let error where error.isTerminated {
            return
        } catch {
            throw RelayError("rowcast relay: the control forwarder stopped: \(error)")
        }
    }

    /// Every request waiting on the ROUTER: forwarded, or refused at once.
    private func takeRequests() throws(ZeroMQError) {
        var taken = 0
        // A bounded pass, so replies keep flowing while many requests arrive.
        while taken < 1000, let frames = try router.receiveMultipart(dontWait: true) {
            taken += 1
            let request = RelayEnvelope.Request(frames: frames)
            guard !request.envelope.isEmpty else { continue }
            switch RelayRequestFilter.decide(request.body.first ?? [], frameCount: request.body.count) {
            case .forward:
                if try dealer.send(request.upstreamFrames, dontWait: true) {
                    counters.add(forwarded: 1)
                } else {
                    counters.add(refused: 1)
                    let reply = RelayRequestFilter.refusal(
                        of: request.body[0], code: RelayRequestFilter.unavailableCode,
                        "rowcast relay: \(queue) requests already wait for rowcastd at \(upstream) (is it running?); try again later"
                    )
                    try answer(request, reply)
                }
            case .refuse(let reply):
                counters.add(refused: 1)
                try answer(request, reply)
            }
        }
    }

    /// Sends a refusal to the client of `request`; a client gone by now is skipped.
    private func answer(_ request: RelayEnvelope.Request, _ reply: [UInt8]) throws(ZeroMQError) {
        try router.send(request.replyFrames(reply), dontWait: true)
    }

    /// Every reply waiting on the DEALER, each to the client it answers.
    private func passRepliesDown() throws(ZeroMQError) {
        var passed = 0
        while passed < 1000, let frames = try dealer.receiveMultipart(dontWait: true) {
            passed += 1
            guard let down = RelayEnvelope.downstreamFrames(ofReply: frames) else { continue }
            // A client gone, or one that left too many replies unread, loses this reply (as
            // with rowcastd itself); it asks again.
            if try router.send(down, dontWait: true) { counters.add(replies: 1) }
        }
    }
}

@available(*, unavailable)
extension ControlForwarder: Sendable {}
