import Foundation
import Logging
import RowCastClient
import RowCastJSON
import RowCastSupport
import ZeroMQ

/// One feed's replica, kept by a `ReplicaSession` on a thread of its own, fanned out to every
/// connection that follows the feed.
///
/// The session (its SUB and DEALER sockets) lives on the hub's thread only: blocking
/// `zmq_poll` never runs on Swift's cooperative pool. Everything the connections share is a
/// ``FeedStreamState`` behind a lock; a message is offered to each connection's bounded
/// ``ConnectionOutbox`` without waiting. `@unchecked Sendable`: the state is behind
/// `state`'s lock, the stop flag behind `stopping`'s, the rest is immutable.
final class FeedHub: @unchecked Sendable {
    /// The feed.
    let feed: String
    /// How to reach the daemon.
    private let options: GatewayOptions
    /// The ZeroMQ context the hub's sockets are made on (shared by the gateway).
    private let context: Context
    /// The other cluster nodes' publishers, which the replica's SUB socket connects to as well.
    private let publishers: ClusterPublishers
    /// The log.
    private let logger: Logger
    /// The replica, history and connections.
    private let state: LockedValue<FeedStreamState>
    /// The windows that follow the feed (docs/PROTOCOL.md, "Windows").
    private let windows = LockedValue(WindowSubscriptions())
    /// Where the replica's sections start in its flat row order (the hub's thread only).
    private var layout: FlatLayout?
    /// Set to end the thread.
    private let stopping = LockedValue(false)
    /// Whether the thread has ended, and who waits for it.
    private let ending = LockedValue<(ended: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    /// When the last connection left (or the hub started), to retire an idle hub.
    private let idleSince = LockedValue<ContinuousClock.Instant?>(ContinuousClock.now)

    /// A hub for `feed`; call ``start()``.
    init(feed: String, options: GatewayOptions, context: Context, publishers: ClusterPublishers, logger: Logger) {
        self.feed = feed
        self.options = options
        self.context = context
        self.publishers = publishers
        self.logger = logger
        state = LockedValue(FeedStreamState(feed: feed, historyLimit: options.historyDeltas))
    }

    /// Starts the thread that keeps the replica.
    func start() {
        let thread = Thread { [self] in
            run()
            state.withLock { $0.finishAll() }
            windows.withLock { $0.finishAll() }
            let waiters = ending.withLock { ending in
                ending.ended = true
                defer { ending.waiters = [] }
                return ending.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        thread.name = "rowcast-gateway \(feed)"
        thread.start()
    }

    /// Tells the thread to end (it does within the control timeout) and then to end every
    /// connection's queue; returns at once.
    func stop() {
        stopping.withLock { $0 = true }
    }

    /// Returns when the thread has ended.
    func ended() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = ending.withLock { ending in
                if !ending.ended { ending.waiters.append(continuation) }
                return ending.ended
            }
            if done { continuation.resume() }
        }
    }

    /// Adds a connection with a queue of `limit` messages, starting after `resume`.
    func attach(resume: ResumePoint?, limit: Int) -> (id: Int, outbox: ConnectionOutbox) {
        let outbox = ConnectionOutbox(limit: limit)
        let id = state.withLock { $0.attach(outbox, resume: resume) }
        idleSince.withLock { $0 = nil }
        return (id, outbox)
    }

    /// Adds a connection that shares `outbox` with others (several feeds over one WebSocket),
    /// starting after `resume`; its queue is not ended when it is detached.
    func attach(resume: ResumePoint?, sharing outbox: ConnectionOutbox) -> Int {
        let id = state.withLock { $0.attach(outbox, resume: resume, ownsOutbox: false) }
        idleSince.withLock { $0 = nil }
        return id
    }

    /// Removes a connection.
    func detach(_ id: Int) {
        state.withLock { $0.detach(id) }
        noteIfIdle()
    }

    /// Adds a window of `request` sent to `outbox` (which it ends on an error when it
    /// `ownsOutbox`); the hub's thread sends its `window` message within one poll.
    func attachWindow(_ request: WindowRequest, outbox: ConnectionOutbox, ownsOutbox: Bool) -> Int {
        let id = windows.withLock { $0.add(request, outbox: outbox, ownsOutbox: ownsOutbox) }
        idleSince.withLock { $0 = nil }
        return id
    }

    /// Asks to move window `id`; `false` when it is gone (its queue overflowed).
    func moveWindow(_ id: Int, to request: WindowRequest) -> Bool {
        windows.withLock { $0.requestMove(id, to: request) }
    }

    /// Removes window `id`.
    func detachWindow(_ id: Int) {
        windows.withLock { $0.remove(id) }
        noteIfIdle()
    }

    /// Starts the idle clock when nothing follows the feed any more.
    private func noteIfIdle() {
        if connectionCount == 0 { idleSince.withLock { $0 = ContinuousClock.now } }
    }

    /// How many connections and windows follow the feed now.
    var connectionCount: Int { state.withLock { $0.connections.count } + windowCount }

    /// How many windows follow the feed now.
    var windowCount: Int { windows.withLock { $0.count } }

    /// How many connections and windows were closed for overflowing.
    var overflowCount: Int { state.withLock { $0.overflowCount } + windows.withLock { $0.overflowCount } }

    /// Whether the replica holds a feed that exists in rowcastd.
    var feedExists: Bool { state.withLock { $0.feedExists } }

    /// Whether no connection has followed the feed for `lifetime`.
    func isIdle(for lifetime: Duration) -> Bool {
        guard connectionCount == 0 else { return false }
        return idleSince.withLock { since in since.map { $0.duration(to: .now) >= lifetime } ?? false }
    }

    // MARK: - The thread

    /// Keeps the replica until stopped: loads, applies, resyncs, and reconnects after errors.
    private func run() {
        var session: ReplicaSession?
        var lastPosition = ContinuousClock.now
        var failing = false
        // The other nodes' publishers the session's SUB socket is connected to, and when the
        // list was last looked at.
        var connected: Set<String> = []
        var lookedAt = ContinuousClock.now
        while !stopping.withLock({ $0 }) {
            do throws(RowCastClientError) {
                if session == nil {
                    let made = try ReplicaSession(
                        feed: feed, controlEndpoint: options.controlEndpoint, publishEndpoint: options.publishEndpoint,
                        context: context, timeout: options.timeout, curve: options.curve)
                    try made.subscribe(.actions(feed))
                    session = made
                    connected = []
                    lookedAt = .now - ClusterPublishers.refreshInterval
                }
                if lookedAt.duration(to: .now) >= .seconds(1) {
                    lookedAt = .now
                    for endpoint in publishers.endpoints() where !connected.contains(endpoint) {
                        connected.insert(endpoint)
                        do {
                            try session!.connectPublisher(endpoint)
                        } catch {
                            // One node's bad endpoint costs only that node's deltas.
                            logger.warning(
                                "cannot follow another cluster node's publisher",
                                metadata: ["feed": "\(feed)", "endpoint": "\(endpoint)", "error": "\(error)"])
                        }
                    }
                }
                // Short waits: a connection that needs a snapshot is served within one.
                let event = try session!.next(timeout: .milliseconds(50))
                if failing {
                    failing = false
                    logger.info("feed replica is back", metadata: ["feed": "\(feed)"])
                }
                if let event { handle(event) }
                if windows.withLock({ $0.hasWork }), let replica = session?.replica {
                    let current = layout ?? FlatLayout(replica)
                    layout = current
                    windows.withLock { $0.serve(replica: replica, layout: current) }
                }
                if state.withLock({ $0.needsSnapshot }), let replica = session?.replica {
                    // Made outside the lock; this copy of the replica is let go before the
                    // next delta, so the session still changes it in place.
                    let text = StreamMessages.snapshot(replica)
                    state.withLock { $0.deliver(snapshot: text, seq: replica.seq, epoch: replica.epoch) }
                }
                if lastPosition.duration(to: .now) >= options.positionInterval {
                    lastPosition = .now
                    state.withLock { state in
                        if let text = state.positionText, !state.connections.isEmpty { state.broadcast(text) }
                    }
                }
            } catch {
                if !failing {
                    failing = true
                    logger.warning("feed replica cannot be kept: \(error)", metadata: ["feed": "\(feed)"])
                    let text = StreamMessages.unavailable(feed: feed, reason: error.description)
                    state.withLock { $0.broadcast(text) }
                    windows.withLock { $0.broadcast(text) }
                }
                // The session's replica is nil after a failed snapshot: the next call asks again.
                // A socket error makes a new session.
                if error.code == "socket_error" {
                    session?.subscriber.close()
                    session?.control.close()
                    session = nil
                }
                pause(.milliseconds(250))
            }
        }
        session?.subscriber.close()
        session?.control.close()
    }

    /// Applies one event of the session to the shared state. A snapshot message is made only
    /// when someone follows the feed.
    private func handle(_ event: ReplicaEvent) {
        switch event {
        case .loaded(let replica), .resynced(let replica, _):
            let text = state.withLock { !$0.connections.isEmpty } ? StreamMessages.snapshot(replica) : nil
            state.withLock { $0.load(seq: replica.seq, epoch: replica.epoch, snapshot: text) }
            layout = FlatLayout(replica)
            windows.withLock { $0.reopenAll() }
        case .applied(let replica, let delta):
            let text = delta.jsonText
            state.withLock { $0.apply(seq: replica.seq, epoch: replica.epoch, deltaText: text) }
            // Each window costs a few lookups per delta, and its own rows when the delta
            // touches it: never the feed's size.
            let newLayout = FlatLayout(replica)
            if let old = layout, windows.withLock({ $0.count > 0 }) {
                let changes = WindowChanges(delta: delta, old: old, new: newLayout)
                windows.withLock { $0.follow(changes, replica: replica, layout: newLayout) }
            }
            layout = newLayout
        case .message(let message):
            guard message.topic == "actions.\(feed)" else { return }
            let text = message.body.jsonText
            state.withLock { $0.broadcast(text) }
        }
    }

    /// Sleeps `duration`, or less when stopping.
    private func pause(_ duration: Duration) {
        let end = ContinuousClock.now.advanced(by: duration)
        while ContinuousClock.now < end, !stopping.withLock({ $0 }) {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
