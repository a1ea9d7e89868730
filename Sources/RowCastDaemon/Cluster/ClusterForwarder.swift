import Logging
import RowCastEngine
import RowCastWire
import ZeroMQ

/// Sends the requests for feeds another cluster node owns to that node, and their answers
/// back (docs/OPERATIONS.md, "Cluster"). Belongs to the loop thread.
///
/// Control requests go over one DEALER per peer, connected to the peer's control endpoint,
/// each under a tag of its own (`[tag, empty, request]`: the peer's ROUTER answers on that
/// envelope); ingest goes over one PUSH per peer. A control request for a partition no node
/// holds (its lease is moving) waits, unsent, for the next owner. When a partition's owner
/// changes while a request waits for its answer, a request that names its `client` and `req` is
/// sent to the new owner (the shared ledger answers it if the old owner applied it); any other
/// is answered `forward_timeout`, as is one still unanswered after `timeout`, and one never
/// sent gets `partition_unavailable`.
///
/// With CURVE, both sockets connect as a CURVE client with the server key pair every node
/// shares (the owner's ZAP handler admits that key as a node's), and every message carries
/// the original client in a last frame (``ForwardedClient``); the owner applies that client's
/// grants. A peer that advertises another server key (or none) gets nothing: its requests are
/// refused with `partition_unavailable` naming the mismatch.
final class ClusterForwarder {
    /// A request waiting for its answer from a peer.
    private struct Waiting {
        var route: ReplyRoute
        var body: [UInt8]
        /// The ``ForwardedClient`` frame sent after the body, with CURVE.
        var client: [UInt8]?
        var routing: RequestRouting
        var partition: Partition
        /// The node it was sent to; nil while it waits for its partition to get an owner.
        var node: String?
        var deadline: ContinuousClock.Instant
    }

    /// One peer's sockets.
    private final class Peer {
        let endpoints: NodeEndpoints
        let control: Socket
        let ingest: Socket

        init(
            endpoints: NodeEndpoints, context: Context, identity: [UInt8], curve: ServerKeyPair?
        ) throws(ZeroMQError) {
            self.endpoints = endpoints
            control = try Socket(context: context, type: .dealer)
            ingest = try Socket(context: context, type: .push)
            try control.setOption(.routingID, identity)
            for (socket, endpoint) in [(control, endpoints.control), (ingest, endpoints.ingest)] {
                try socket.setOption(.linger, 0)
                try socket.setOption(.sendHighWaterMark, 100_000)
                if let curve, Daemon.usesCurve(endpoint) {
                    // A node is a CURVE client of the others with the key pair they share.
                    try socket.setOption(.curveServerKey, Array(curve.publicKey.utf8))
                    try socket.setOption(.curvePublicKey, Array(curve.publicKey.utf8))
                    try socket.setOption(.curveSecretKey, Array(curve.secretKey.utf8))
                }
            }
            try control.setOption(.receiveHighWaterMark, 100_000)
            try control.connect(endpoints.control)
            try ingest.connect(endpoints.ingest)
        }

        func close() {
            control.close()
            ingest.close()
        }
    }

    /// How many forwarded control requests may wait for answers at once; past it, requests
    /// are refused with `partition_unavailable` until answers come.
    static let maximumWaiting = 65_536

    /// How the routing identity of a node's forwarding socket starts: a node does not forward a
    /// request that came from another node again (two nodes with views that disagree for a
    /// moment would pass it back and forth).
    static let identityPrefix: [UInt8] = Array("rowcast-node:".utf8)

    /// Whether a control request on `route` was forwarded by another node. Behind the front of
    /// several engine loops, the route starts with the front's identity and header
    /// (`FrontHeader`): the client's identity comes after them.
    static func isForwarded(_ route: ReplyRoute, behindFront: Bool = false) -> Bool {
        let frames = behindFront ? route.frames.dropFirst(2) : route.frames[...]
        guard let first = frames.first, first.count > identityPrefix.count else { return false }
        return first.starts(with: identityPrefix)
    }

    private let context: Context
    private let poller: Poller
    private let logger: Logger
    private let timeout: Duration
    private var peers: [String: Peer] = [:]
    private var waiting: [UInt64: Waiting] = [:]
    private var nextTag: UInt64 = 1
    /// Requests forwarded, by socket, and answers timed out, for the metrics.
    private(set) var forwardedControl = 0
    private(set) var forwardedIngest = 0
    private(set) var timedOut = 0

    /// This node's name, in its forwarding sockets' identities.
    private let node: String
    /// The server key pair the nodes share, with CURVE.
    private let curve: ServerKeyPair?
    /// The nodes whose server key mismatch was logged (once each).
    private var reportedMismatches: Set<String> = []

    /// A forwarder for `node` whose sockets live in `context` and are watched by the loop's
    /// `poller`; with `curve`, a CURVE client of the other nodes with that key pair.
    init(
        node: String, context: Context, poller: Poller, timeout: Duration, curve: ServerKeyPair? = nil,
        logger: Logger
    ) {
        self.node = node
        self.curve = curve
        self.context = context
        self.poller = poller
        self.timeout = timeout
        self.logger = logger
    }

    /// How many forwarded requests wait for their answers.
    var waitingCount: Int { waiting.count }

    /// Why this node cannot forward to `owner`: their CURVE server keys differ (or one runs
    /// without CURVE). Nil when they match. Logged once per node.
    func keyMismatch(_ owner: (node: String, endpoints: NodeEndpoints)) -> String? {
        let mine = curve?.publicKey
        guard owner.endpoints.serverKey != mine else { return nil }
        let problem =
            "node \(owner.node) runs \(owner.endpoints.serverKey.map { "with CURVE server key \($0)" } ?? "without CURVE"), this node \(mine.map { "with CURVE server key \($0)" } ?? "without CURVE"): every node of a cluster needs the same curve setting and the same server key pair (copy one server.key to every node, curve_server_key)"
        if reportedMismatches.insert(owner.node).inserted {
            logger.error("cannot forward to a cluster node: \(problem)", metadata: ["node": "\(owner.node)"])
        }
        return problem
    }

    /// Forwards a control request to `owner`, or keeps it for the partition's next owner when
    /// it has none; returns the reply to send at once instead (a refusal) when it cannot.
    /// `client` is the ``ForwardedClient`` frame to send after the body (with CURVE).
    func forward(
        control body: [UInt8], client: [UInt8]? = nil, route: ReplyRoute, routing: RequestRouting,
        partition: Partition, owner: (node: String, endpoints: NodeEndpoints)?
    ) -> [UInt8]? {
        guard waiting.count < Self.maximumWaiting else {
            return routing.refusal(
                .partitionUnavailable,
                "\(Self.maximumWaiting) forwarded requests already wait for answers from other nodes; nothing was applied, send it again shortly"
            )
        }
        let tag = nextTag
        nextTag += 1
        let entry = Waiting(
            route: route, body: body, client: client, routing: routing, partition: partition, node: owner?.node,
            deadline: .now + timeout)
        guard let owner else {
            waiting[tag] = entry
            return nil
        }
        guard send(entry, tag: tag, endpoints: owner.endpoints) else {
            return routing.refusal(
                .partitionUnavailable,
                "node \(owner.node), which owns \(partition), takes no more requests for now; nothing was applied, send it again shortly"
            )
        }
        waiting[tag] = entry
        forwardedControl += 1
        return nil
    }

    /// Forwards an ingest message to `owner`, with the ``ForwardedClient`` frame `client`
    /// after it (with CURVE); returns false when its queue is full.
    func forward(
        ingest body: [UInt8], client: [UInt8]? = nil, owner: (node: String, endpoints: NodeEndpoints)
    ) -> Bool {
        guard let peer = peer(owner.node, owner.endpoints),
            (try? peer.ingest.send(client.map { [body, $0] } ?? [body], dontWait: true)) == true
        else { return false }
        forwardedIngest += 1
        return true
    }

    /// The answers the peers sent since the last call, each with the route it goes back on.
    func takeAnswers() -> [(route: ReplyRoute, body: [UInt8])] {
        var answers: [(route: ReplyRoute, body: [UInt8])] = []
        for peer in peers.values {
            while let frames = try? peer.control.receiveMultipart(dontWait: true) {
                guard frames.count == 3, frames[0].count == 8, frames[1].isEmpty else { continue }
                let tag = frames[0].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                guard let entry = waiting[tag] else { continue }
                if entry.routing.op != "snapshot" || RequestRouting.isLastReply(frames[2]) { waiting[tag] = nil }
                answers.append((entry.route, frames[2]))
            }
        }
        return answers
    }

    /// After the cluster's view changed: connects to new owners, sends waiting requests whose
    /// partition moved to their new owner (or refuses them), closes the sockets of nodes gone,
    /// and answers `forward_timeout` to requests past their deadline. Returns those answers.
    /// A request whose partition this node took over (and `served` has) goes to this node's
    /// own control socket, where the loop applies it like any other.
    func update(
        view: ClusterView, served: Set<Partition>, now: ContinuousClock.Instant = .now
    ) -> [(route: ReplyRoute, body: [UInt8])] {
        var answers: [(route: ReplyRoute, body: [UInt8])] = []
        for (tag, entry) in waiting {
            var owner = view.holder(of: entry.partition)
            if owner?.node == view.node, !served.contains(entry.partition) { owner = nil }
            if now >= entry.deadline || (entry.node == nil && view.storeFailure != nil) {
                waiting[tag] = nil
                timedOut += 1
                answers.append(
                    entry.node == nil
                        ? (entry.route, entry.routing.refusal(.partitionUnavailable, unownedMessage(entry)))
                        : (entry.route, entry.routing.refusal(.forwardTimeout, timeoutMessage(entry))))
            } else if let owner, owner.node != entry.node {
                waiting[tag] = nil
                guard entry.routing.isRetrySafe || entry.node == nil else {
                    answers.append((entry.route, entry.routing.refusal(.forwardTimeout, movedMessage(entry))))
                    continue
                }
                var moved = entry
                moved.node = owner.node
                let retag = nextTag
                nextTag += 1
                if send(moved, tag: retag, endpoints: owner.endpoints) {
                    waiting[retag] = moved
                } else {
                    answers.append(
                        (
                            entry.route,
                            entry.routing.refusal(
                                entry.node == nil ? .partitionUnavailable : .forwardTimeout,
                                "\(entry.partition) moved to node \(owner.node), which takes no more requests for now"
                                    + (entry.node == nil
                                        ? "; nothing was applied, send it again shortly"
                                        : "; the request may or may not have been applied: send it again with the same client and req")
                            )
                        ))
                }
            }
        }
        let live = Set(view.nodes.map(\.name)).union([view.node])
        for (name, peer) in peers
        where !live.contains(name)
            || view.nodes.first(where: { $0.name == name }).flatMap({
                NodeEndpoints(json: $0.endpoints)
            }) != peer.endpoints
        {
            poller.unregister(peer.control)
            peer.close()
            peers[name] = nil
        }
        return answers
    }

    /// The earliest deadline of a waiting request, for the loop's poll.
    var nextDeadline: ContinuousClock.Instant? { waiting.values.lazy.map(\.deadline).min() }

    /// The answers for every request still waiting, as the node stops: what the peers already
    /// sent, then `forward_timeout` for those sent and unanswered (they may have been applied),
    /// `partition_unavailable` for those never sent. None waits afterwards.
    func abandon() -> [(route: ReplyRoute, body: [UInt8])] {
        var answers = takeAnswers()
        for entry in waiting.values {
            answers.append(
                entry.node == nil
                    ? (
                        entry.route,
                        entry.routing.refusal(
                            .partitionUnavailable,
                            "this node is stopping and no node served \(entry.partition) meanwhile; nothing was applied, send it again"
                        )
                    )
                    : (
                        entry.route,
                        entry.routing.refusal(
                            .forwardTimeout,
                            "this node is stopping before node \(entry.node ?? "?") answered; the request may or may not have been applied: send it again with the same client and req"
                        )
                    ))
        }
        waiting = [:]
        return answers
    }

    /// Closes every peer socket; waiting requests get no answer (`abandon` them first).
    func close() {
        for peer in peers.values {
            poller.unregister(peer.control)
            peer.close()
        }
        peers = [:]
        waiting = [:]
    }

    private func send(_ entry: Waiting, tag: UInt64, endpoints: NodeEndpoints) -> Bool {
        guard let node = entry.node, keyMismatch((node, endpoints)) == nil, let peer = peer(node, endpoints) else {
            return false
        }
        let tagBytes = withUnsafeBytes(of: tag) { Array($0) }
        let frames = [tagBytes, [], entry.body] + (entry.client.map { [$0] } ?? [])
        return (try? peer.control.send(frames, dontWait: true)) == true
    }

    private func peer(_ node: String, _ endpoints: NodeEndpoints) -> Peer? {
        if let peer = peers[node], peer.endpoints == endpoints { return peer }
        if let stale = peers[node] {
            poller.unregister(stale.control)
            stale.close()
        }
        do {
            let identity = Self.identityPrefix + Array("\(self.node):\(UInt32.random(in: 0...UInt32.max))".utf8)
            let peer = try Peer(endpoints: endpoints, context: context, identity: identity, curve: curve)
            peers[node] = peer
            poller.register(peer.control, for: .readable)
            return peer
        } catch {
            logger.warning(
                "cannot connect to a cluster node", metadata: ["node": "\(node)", "error": "\(error)"])
            peers[node] = nil
            return nil
        }
    }

    private func unownedMessage(_ entry: Waiting) -> String {
        "no node took \(entry.partition) over within \(timeout) (its lease is moving between nodes); nothing was applied, send it again"
    }

    private func timeoutMessage(_ entry: Waiting) -> String {
        "node \(entry.node ?? "?"), which owns \(entry.partition), did not answer within \(timeout); the request may or may not have been applied. Send it again with the same client and req: a repeat of an applied request gets its first answer"
    }

    private func movedMessage(_ entry: Waiting) -> String {
        "\(entry.partition) moved from node \(entry.node ?? "?") to another node before it answered, and the request names no client and req to send it again safely; it may or may not have been applied"
    }
}
