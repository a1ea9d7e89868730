import RowCastJSON
import ZeroMQ

/// Keeps a ``FeedReplica`` of one feed up to date: the Clone pattern of PROTOCOL.md
/// ("Keeping a replica").
///
/// It subscribes to `rows.<feed>\0` first, then asks for a snapshot while buffering the deltas
/// that arrive meanwhile, drops those the snapshot already includes and applies the rest.
/// When a delta does not fit (a gap, another epoch, an index or id that does not match) it
/// discards the replica, loads a fresh snapshot and reports ``ReplicaEvent/resynced(_:reason:)``.
///
/// ```swift
/// let session = try ReplicaSession(feed: "cars", control: control, subscriber: subscriber)
/// _ = try session.start()
/// while let event = try session.next(timeout: .seconds(5)) { ... session.replica ... }
/// ```
///
/// Owns its client and subscriber; not thread-safe.
public final class ReplicaSession {
    /// The feed replicated.
    public let feed: String
    /// The control client snapshots are requested through.
    public let control: ControlClient
    /// The subscriber deltas arrive on.
    public let subscriber: Subscriber
    /// The replica, or `nil` before ``start()`` and while a reload is failing.
    public private(set) var replica: FeedReplica?
    /// How many times the replica was reloaded because a delta did not fit.
    public private(set) var resyncCount = 0
    /// How many of those were resumed from the daemon's history (`since`) rather than
    /// reloaded from a snapshot.
    public private(set) var resumeCount = 0
    /// Messages received while waiting for a snapshot, in arrival order.
    private var buffer: [SubscriberMessage] = []
    /// The index of the next buffered message to hand out.
    private var bufferHead = 0
    /// The topic of this feed's deltas, without the NUL.
    private let rowsTopic: String

    /// A session over `control` and `subscriber`; subscribes to the feed's deltas at once.
    public init(feed: String, control: ControlClient, subscriber: Subscriber) throws(RowCastClientError) {
        self.feed = feed
        self.control = control
        self.subscriber = subscriber
        rowsTopic = "rows.\(feed)"
        try subscriber.subscribe(.rows(feed))
    }

    /// A session with its own control client and subscriber, on `context` (one of its own
    /// when `nil`), both with CURVE when `curve` is given. With `reportsRefusal`, the control
    /// client reports a daemon that is not listening at once (``ControlClient``).
    public convenience init(
        feed: String, controlEndpoint: String = RowCastEndpoints.control,
        publishEndpoint: String = RowCastEndpoints.publish, context: Context? = nil,
        timeout: Duration = .seconds(5), curve: CurveCredentials? = nil, reportsRefusal: Bool = false
    ) throws(RowCastClientError) {
        let context = if let context { context } else { try ClientSocket.makeContext() }
        let subscriber = try Subscriber(endpoint: publishEndpoint, context: context, curve: curve)
        let control = try ControlClient(
            endpoint: controlEndpoint, context: context, timeout: timeout, curve: curve, reportsRefusal: reportsRefusal)
        try self.init(feed: feed, control: control, subscriber: subscriber)
    }

    /// Also receives the deltas that the publisher at `endpoint` sends (another node of a
    /// cluster, which publishes the feeds it serves: the feed may move there).
    public func connectPublisher(_ endpoint: String) throws(RowCastClientError) {
        try subscriber.connect(also: endpoint)
    }

    /// Also hands out messages of `topic` as ``ReplicaEvent/message(_:)``.
    public func subscribe(_ topic: Topic) throws(RowCastClientError) {
        try subscriber.subscribe(topic)
    }

    /// Loads the replica from a snapshot (buffering deltas that arrive meanwhile).
    @discardableResult
    public func start() throws(RowCastClientError) -> FeedReplica {
        let loaded = try loadSnapshot()
        replica = loaded
        return loaded
    }

    /// Discards the replica and everything buffered for it, and loads a fresh snapshot.
    @discardableResult
    public func reload() throws(RowCastClientError) -> FeedReplica {
        replica = nil
        discardReceivedDeltas()
        return try start()
    }

    /// Handles messages until one makes an event, waiting at most `timeout` in all (`nil`:
    /// for ever).
    ///
    /// - Returns: the event, or `nil` when `timeout` passed without one. Deltas the replica
    ///   already includes make no event.
    /// - Throws: when a snapshot cannot be had (the replica is then `nil`, and the next call
    ///   tries again), or a message cannot be read.
    public func next(timeout: Duration?) throws(RowCastClientError) -> ReplicaEvent? {
        let deadline = Deadline(timeout)
        if replica == nil { return .loaded(try start()) }
        while true {
            guard let message = try nextMessage(deadline: deadline) else { return nil }
            guard message.topic == rowsTopic else { return .message(message) }
            guard var updated = replica else { return .loaded(try start()) }
            // Held only by `updated` while it changes, a large replica is changed in place
            // (see FeedReplica.apply) instead of copied.
            replica = nil
            do {
                switch try updated.apply(delta: message.body) {
                case .applied:
                    replica = updated
                    return .applied(updated, delta: message.body)
                case .alreadyIncluded:
                    replica = updated
                    continue
                }
            } catch {
                resyncCount += 1
                // A gap: the missed deltas from the daemon's history if it still has them.
                if error.kind == .gap, let resumed = try resume(updated) {
                    resumeCount += 1
                    replica = resumed
                    return .resynced(resumed, reason: error)
                }
                return .resynced(try reload(), reason: error)
            }
        }
    }

    /// Waits at most `timeout` (`nil`: for ever) until ``next(timeout:)`` has a message to
    /// handle or one of `fileDescriptors` (a terminal, a pipe) is readable, so that one thread
    /// can follow the feed and its own input together.
    ///
    /// - Returns: those of `fileDescriptors` that are readable or hung up (read them to
    ///   know which); possibly none: a message is waiting, or `timeout` passed. With a
    ///   message already buffered it only checks `fileDescriptors` and returns at once.
    public func wait(timeout: Duration?, orInputOn fileDescriptors: [Int32]) throws(RowCastClientError) -> [Int32] {
        let timeout = bufferHead < buffer.count ? .zero : timeout
        let poller = Poller()
        poller.register(subscriber.clientSocket.socket)
        for descriptor in fileDescriptors { poller.register(fileDescriptor: descriptor) }
        do {
            _ = try poller.poll(timeoutMilliseconds: Deadline(timeout).remainingMilliseconds)
        } catch {
            throw .socket(error, endpoint: subscriber.endpoint, doing: "waiting for messages from")
        }
        return fileDescriptors.filter { !poller.events(ofFileDescriptor: $0).isDisjoint(with: [.readable, .error]) }
    }

    // MARK: - Internals

    /// The next buffered message, else the next one from the socket before `deadline`.
    private func nextMessage(deadline: Deadline) throws(RowCastClientError) -> SubscriberMessage? {
        if bufferHead < buffer.count {
            let message = buffer[bufferHead]
            bufferHead += 1
            if bufferHead == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                bufferHead = 0
            }
            return message
        }
        return try subscriber.receive(timeout: deadline.end.map { ContinuousClock.now.duration(to: $0) })
    }

    /// Drops this feed's deltas received so far (buffered or waiting in the socket): the
    /// daemon published them before it gets the next snapshot request, so that snapshot
    /// includes them. Other messages stay buffered.
    private func discardReceivedDeltas() {
        buffer = Array(buffer[bufferHead...])
        bufferHead = 0
        while true {
            let message: SubscriberMessage?
            do {
                message = try subscriber.receiveNow()
            } catch {
                continue  // an unreadable message: skipped
            }
            guard let message else { break }
            buffer.append(message)
        }
        buffer.removeAll { $0.topic == rowsTopic }
    }

    /// Asks for the deltas after `stale`'s seq (`since`), buffering what the subscriber
    /// receives meanwhile, and applies them; nil when the daemon's history no longer covers
    /// them (or the daemon does not know `since`): a snapshot is needed.
    private func resume(_ stale: FeedReplica) throws(RowCastClientError) -> FeedReplica? {
        guard let epoch = stale.epoch else { return nil }
        // The one reply ends the exchange: `.some(nil)` is "answered, but no replica".
        return try exchange(RowCastRequest.since(feed: feed, epoch: epoch, seq: stale.seq)) { reply in
            // A daemon without `since` refuses it: a snapshot then.
            guard reply["ok"]?.boolValue == true else { return .some(nil) }
            var resumed = stale
            return .some((try? resumed.resume(from: reply)) == true ? resumed : nil)
        }
    }

    /// Requests a snapshot and waits for it (every part), buffering what the subscriber
    /// receives meanwhile.
    private func loadSnapshot() throws(RowCastClientError) -> FeedReplica {
        var assembler = SnapshotAssembler()
        return try exchange(RowCastRequest.snapshot(feed: feed)) { reply throws(RowCastClientError) in
            guard let whole = try control.assemble(try ControlClient.check(reply), into: &assembler, feed: feed) else {
                return nil
            }
            do {
                return try FeedReplica(snapshot: whole)
            } catch {
                throw .invalidReply(
                    endpoint: control.endpoint, "to snapshot of feed \(feed) is not a valid snapshot (\(error))")
            }
        }
    }

    /// Sends `body` over the control socket and hands each reply to it to `handle` until
    /// that returns a result, buffering what the subscriber receives meanwhile (a reply
    /// restarts the timeout, so a snapshot of many parts is not cut short).
    private func exchange<Outcome>(
        _ body: JSONValue, handle: (JSONValue) throws(RowCastClientError) -> Outcome?
    ) throws(RowCastClientError) -> Outcome {
        let limit = control.timeout
        var deadline = Deadline(limit)
        let (req, op) = try control.send(body, deadline: deadline, limit: limit)
        while true {
            while let message = try? subscriber.receiveNow() { buffer.append(message) }
            if let reply = try control.receiveReply(deadline: Deadline(.zero)) {
                guard reply["req"].map({ ControlClient.isSameReq($0, req) }) ?? true else { continue }
                deadline = Deadline(limit)
                if let outcome = try handle(reply) { return outcome }
                continue
            }
            if deadline.hasPassed { throw .timeout(endpoint: control.endpoint, seconds: limit.seconds, op: op) }
            try ClientSocket.wait(for: [control.socket, subscriber.clientSocket], deadline: deadline)
        }
    }
}

@available(*, unavailable)
extension ReplicaSession: Sendable {}
