import CoreMetrics
import Foundation
import Logging
import RowCastJSON
import RowCastSupport
import ZeroMQ

/// The sockets clients reach when several engine loops run (`EngineThreadGroup`), bound as
/// one rowcastd binds them (permissions, `ipc://` path locks, the same options): ingest and
/// control for the front, and the publish socket with the proxy that joins the loops' deltas
/// onto it. With CURVE their TCP endpoints are CURVE servers, and the proxy applies each
/// subscription only when its client may read what it names, as one rowcastd does.
final class PublicSockets {
    /// The ingest socket (PULL), read by the front.
    let ingest: Socket
    /// The control socket (ROUTER), read by the front.
    let control: Socket
    /// The endpoints actually bound (wildcard ports resolved).
    let bound: (ingest: String, control: String, publish: String)
    private let publish: Socket
    private let upstream: Socket
    private let steer: Socket
    private let steerEndpoint: String
    private let monitor: SocketMonitor?
    private let subscribers: Gauge?
    private var connections = 0
    private let context: Context
    private let curve: SharedCurve?

    /// Binds the public sockets of `configuration` in `context` (CURVE servers with `curve`'s
    /// key pair, when given), and connects the proxy's upstream to each of the `loops` loops'
    /// publish endpoints; adds the path locks to `locks`.
    init(
        configuration: DaemonConfiguration, context: Context, loops: Int, file: String?, metrics: (any MetricsFactory)?,
        curve: SharedCurve? = nil, locks: inout [PIDLockFile]
    ) throws {
        self.context = context
        self.curve = curve
        let permissions = try SocketPermissions(configuration, file: file)
        let zmqLimit = Int64(configuration.hardMessageBytes)
        func bind(_ socket: Socket, _ endpoint: String) throws {
            if let path = SocketPermissions.socketPath(of: endpoint), path != "*" {
                locks.append(try SocketInUseError.lock(path))
            }
            try Daemon.secure(socket, endpoint: endpoint, keyPair: curve?.keyPair)
            try permissions.bind(socket, to: endpoint)
        }
        ingest = try Socket(context: context, type: .pull)
        try ingest.setOption(.linger, 0)
        try ingest.setOption(.receiveHighWaterMark, configuration.receiveHighWaterMark)
        try ingest.setOption(.maxMessageSize, zmqLimit)
        try bind(ingest, configuration.ingestEndpoint)

        control = try Socket(context: context, type: .router)
        try control.setOption(.linger, configuration.lingerMilliseconds)
        try control.setOption(.receiveHighWaterMark, configuration.receiveHighWaterMark)
        try control.setOption(.sendHighWaterMark, configuration.clientReplyQueue)
        try control.setOption(.routerMandatory, true)
        try control.setOption(.maxMessageSize, zmqLimit)
        try bind(control, configuration.controlEndpoint)

        // Verbose, so every subscription (a repeated one too) reaches the loops, which answer
        // their own feeds' with a position, as one rowcastd does; with CURVE, manual: the
        // proxy applies a subscription only once it checked the client may read it.
        let publish = try Socket(context: context, type: .xpub)
        try publish.setOption(curve == nil ? .xpubVerbose : .xpubManual, true)
        try publish.setOption(.linger, configuration.lingerMilliseconds)
        try publish.setOption(.sendHighWaterMark, configuration.publishHighWaterMark)
        monitor = try metrics.map { _ in try SocketMonitor(watching: publish, events: [.accepted, .disconnected]) }
        subscribers = metrics.map { Gauge(label: DaemonMetricNames.subscribers, factory: $0) }
        try bind(publish, configuration.publishEndpoint)
        self.publish = publish

        upstream = try Socket(context: context, type: .xsub)
        try upstream.setOption(.linger, 0)
        try upstream.setOption(.receiveHighWaterMark, configuration.publishHighWaterMark)
        for index in 0..<loops { try upstream.connect(EngineLoopSlot.endpoints(of: index).publish) }

        steerEndpoint = "inproc://rowcastd-pub-steer-\(UInt64.random(in: 0...UInt64.max))"
        steer = try Socket(context: context, type: .pair)
        try steer.setOption(.linger, 0)
        try steer.bind(steerEndpoint)
        bound = (try ingest.lastEndpoint, try control.lastEndpoint, try publish.lastEndpoint)
    }

    /// `rowcastd ready ingest=... control=... publish=...`, as one rowcastd prints it.
    var readyLine: String {
        "rowcastd ready ingest=\(bound.ingest) control=\(bound.control) publish=\(bound.publish)"
    }

    /// The `endpoints` member of `status`.
    var endpointsJSON: JSONValue {
        ["ingest": .string(bound.ingest), "control": .string(bound.control), "publish": .string(bound.publish)]
    }

    /// Runs the proxy on its thread (`rowcastd-pub`) until `close`; the semaphore is signalled
    /// when it has ended.
    func startProxy(logger: Logger) -> DispatchSemaphore {
        let ended = DispatchSemaphore(value: 0)
        let sockets = ProxySockets(upstream: upstream, publish: publish, steer: steer, curve: curve, logger: logger)
        NamedThread.start("rowcastd-pub") {
            do {
                try sockets.run()
            } catch {
                if (error as? ZeroMQError)?.isTerminated != true {
                    logger.error("the publish proxy stopped", metadata: ["error": "\(error)"])
                }
            }
            ended.signal()
        }
        return ended
    }

    /// Reads the publish socket's connection events into `rowcast_subscribers`.
    func countSubscribers() {
        guard let monitor, let subscribers else { return }
        var changed = false
        while let event = try? monitor.nextEvent() {
            if event.kind == .accepted { connections += 1; changed = true }
            if event.kind == .disconnected { connections = max(0, connections - 1); changed = true }
        }
        if changed { subscribers.record(connections) }
    }

    /// Closes ingest and control, ends the proxy and waits for it, then closes its sockets
    /// (queued deltas get up to the linger time to leave).
    func close(proxyEnded: DispatchSemaphore?) {
        ingest.close()
        control.close()
        monitor?.close()
        if let proxyEnded, let terminate = try? Socket(context: context, type: .pair) {
            try? terminate.setOption(.linger, 1000)
            try? terminate.connect(steerEndpoint)
            _ = try? terminate.send(Proxy.terminate)
            proxyEnded.wait()
            terminate.close()
        }
        upstream.close()
        publish.close()
        steer.close()
    }
}

/// The proxy's sockets, handed to its thread (they belong to it until it ends).
private struct ProxySockets: @unchecked Sendable {
    let upstream: Socket
    let publish: Socket
    let steer: Socket
    /// With CURVE: the keys that decide which subscriptions apply.
    let curve: SharedCurve?
    let logger: Logger

    /// Moves the loops' deltas down and the subscriptions up until TERMINATE arrives on
    /// `steer`; then moves the deltas already queued, so the last ones the loops sent before
    /// they ended go out too (libzmq's own proxy would stop at once and drop them).
    func run() throws {
        let poller = Poller()
        poller.register(upstream, for: .readable)
        poller.register(publish, for: .readable)
        poller.register(steer, for: .readable)
        while true {
            _ = try poller.poll(timeoutMilliseconds: -1)
            if poller.isReadable(upstream) { try move(from: upstream, to: publish) }
            if poller.isReadable(publish) {
                if let curve { try checkSubscriptions(curve) } else { try move(from: publish, to: upstream) }
            }
            if poller.isReadable(steer), try steer.receive(dontWait: true) == Proxy.terminate {
                while try move(from: upstream, to: publish) > 0 {}
                return
            }
        }
    }

    /// With CURVE (a manual XPUB): applies up to 1,000 waiting subscriptions whose client may
    /// read what they name (``SubscriptionFilter``), and passes each on to the loops (the one
    /// serving its feed answers with the position); a refused one is dropped (the client
    /// receives nothing of it), counted and logged, as one rowcastd does. An unsubscription is
    /// applied on the public socket only: the loops keep sending what any client subscribed to
    /// once, and the public socket sends each client only what it is subscribed to.
    private func checkSubscriptions(_ curve: SharedCurve) throws {
        var moved = 0
        while moved < 1000,
            let (frames, userID) = try publish.receiveMultipart(property: Daemon.userIDProperty, dontWait: true)
        {
            moved += 1
            guard let frame = frames.first, let kind = frame.first, kind == 0 || kind == 1 else { continue }
            let prefix = Array(frame.dropFirst())
            if kind == 0 {
                try publish.unsubscribe(prefix)
                continue
            }
            if Daemon.refuses(
                subscription: prefix, userID: userID, keyring: curve.keyring, logger: logger,
                countRefusal: curve.countRefusedSubscription)
            {
                continue
            }
            try publish.subscribe(prefix)
            _ = try upstream.send([frame], dontWait: true)
        }
    }

    /// Moves up to 1,000 waiting messages from `source` to `target`; returns how many.
    @discardableResult
    private func move(from source: Socket, to target: Socket) throws -> Int {
        var moved = 0
        while moved < 1000, let frames = try source.receiveMultipart(dontWait: true) {
            // XPUB and XSUB never block a send: past the high-water mark libzmq drops.
            _ = try target.send(frames, dontWait: true)
            moved += 1
        }
        return moved
    }
}
