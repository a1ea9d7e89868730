import Logging
import RowCastEngine
import RowCastJSON
import RowCastPostgres
import RowCastSupport
import RowCastWire
import ZeroMQ

/// rowcastd as one node of a cluster (`cluster.node_name`; docs/OPERATIONS.md, "Cluster"): the
/// partitions it serves follow its leases (`ClusterCoordinator`), and requests for feeds of
/// other partitions go to their owners (`ClusterForwarder`).
extension Daemon {
    /// The PostgreSQL URL a cluster node shares with the others; nil when rowcastd runs alone
    /// (`ClusterRules` refused a node name with another store when the configuration loaded).
    func clusterStoreURL() throws -> String? {
        guard !configuration.nodeName.isEmpty else { return nil }
        guard case .postgresql(let url) = try StoreLocation(parsing: configuration.store) else { return nil }
        return url
    }

    /// The PostgreSQL store of a cluster node, fenced by the node's lease tokens.
    func openClusterStore(url: String, tokens: LeaseTokens) throws -> PostgreSQLFeedStore {
        let store = try PostgreSQLFeedStore(
            url: url, node: configuration.nodeName, lease: .milliseconds(configuration.leaseMilliseconds),
            logger: logger)
        store.fence = tokens
        return store
    }

    /// Joins the cluster once the sockets are bound (their endpoints are what the other nodes
    /// forward to): the first round of leases runs here, and the partitions it takes are
    /// loaded before `start` returns, so READY=1 means this node serves them.
    func joinCluster(url: String, tokens: LeaseTokens, durable: DurableEngine, context: Context) throws {
        var endpoints = NodeEndpoints(bound: boundEndpoints, advertising: configuration.advertiseHost)
        endpoints.serverKey = serverKeyPair?.publicKey
        let coordinator = ClusterCoordinator(
            node: configuration.nodeName, url: url, lease: .milliseconds(configuration.leaseMilliseconds),
            endpoints: endpoints, plugins: pluginSummary(), tokens: tokens, logger: logger)
        cluster = coordinator
        clusterExchange = coordinator.exchange
        leaseGate = LeaseGate(deadline: coordinator.deadline)
        forwarder = ClusterForwarder(
            node: configuration.nodeName, context: context, poller: poller,
            timeout: .milliseconds(configuration.leaseMilliseconds) + .seconds(2), curve: serverKeyPair,
            logger: logger)
        poller.register(fileDescriptor: coordinator.exchange.wakeDescriptor, for: .readable)
        coordinator.start()
        // Taken before the first round's changes are applied (`LeaseGate`).
        leaseGate?.sample()
        restoreReports += try applyClusterChanges(durable: durable)
        checkLease(engine: durable.engine)
        let view = clusterView ?? coordinator.exchange.view
        durable.engine.statusMembers["cluster"] = clusterStatus(view, forwarder: forwarder!)
        logger.info(
            "joined the cluster",
            metadata: [
                "node": "\(configuration.nodeName)", "partitions": "\(durable.engine.servedPartitions?.count ?? 0)",
                "nodes": "\(clusterView?.nodes.count ?? 0)", "control": "\(endpoints.control)",
            ])
    }

    /// Joins the cluster as engine loop `index` of several: the group runs the node's one
    /// coordinator (started once the public sockets are bound, which the other nodes forward
    /// to), and this loop takes the changes of its partitions from its exchange as it runs; the
    /// group announces readiness once every loop applied the first round's.
    func joinCluster(asLoop index: Int, of coordinator: ClusterCoordinator, context: Context) {
        let exchange = coordinator.exchanges[index]
        clusterExchange = exchange
        // Closed until the loop takes the first round's changes (`serveCluster`).
        leaseGate = LeaseGate(deadline: coordinator.deadline)
        let forwarder = ClusterForwarder(
            node: configuration.nodeName, context: context, poller: poller,
            timeout: .milliseconds(configuration.leaseMilliseconds) + .seconds(2), curve: serverKeyPair,
            logger: logger)
        self.forwarder = forwarder
        poller.register(fileDescriptor: exchange.wakeDescriptor, for: .readable)
        // Every loop loads the same plugins: the first one's summary is the node's.
        if index == 0 { coordinator.pluginsChanged(pluginSummary()) }
        engine?.statusMembers["cluster"] = clusterStatus(exchange.view, forwarder: forwarder)
    }

    /// Takes what the coordinator changed: gives up lost and unwanted partitions and loads the
    /// acquired ones (after flushing the pipeline: both need every commit done). Returns the
    /// error events of loaded feeds to publish.
    @discardableResult
    func applyClusterChanges(durable: DurableEngine) throws -> [Publication] {
        // Checked before the changes are taken, so none is lost (the loop flushes first).
        guard !durable.hasHeldOutputs else { throw ClusterStateError.pipelineBusy }
        guard let exchange = clusterExchange, let changes = exchange.take() else { return [] }
        defer { exchange.applied() }
        clusterView = changes.view
        let served = durable.engine.servedPartitions ?? []
        let leaving = served.intersection(changes.lost.union(changes.unwanted))
        let adopting = changes.acquired.subtracting(changes.lost).subtracting(changes.unwanted).subtracting(served)
        guard !leaving.isEmpty || !adopting.isEmpty else {
            exchange.handBack(changes.unwanted)
            return []
        }
        if !leaving.isEmpty {
            durable.release(leaving)
            positions.forget { leaving.contains(Partition(feed: $0)) }
        }
        exchange.handBack(changes.unwanted)
        guard !adopting.isEmpty else { return [] }
        do {
            let reports = try durable.adopt(adopting)
            positions.record(
                durable.engine.allPositions.filter { adopting.contains(Partition(feed: $0.feed)) })
            return reports
        } catch {
            // Its leases go back, so this node (or another) takes them again at a later round.
            logger.error(
                "could not load partitions taken over; their leases are handed back",
                metadata: ["partitions": "\(adopting.count)", "error": "\(error.message)"])
            durable.release(adopting)
            exchange.handBack(adopting)
            return []
        }
    }

    /// The cluster step of a pass: applies lease changes (flushing first when there are), sends
    /// the forwarded requests' answers, and, at most every 250 ms, moves requests whose
    /// partition changed owner and answers those past their time.
    func serveCluster(durable: DurableEngine, control: Socket, publish: Socket, engine: Engine) throws {
        guard let exchange = clusterExchange, let forwarder else { return }
        // Taken before the changes: a deadline comes with the changes posted before it.
        leaseGate?.sample()
        if exchange.hasChanges {
            try settleCarried(durable: durable, control: control, publish: publish)
            try send(try durable.flush(), control: control, publish: publish, engine: engine)
            try publishAll(try applyClusterChanges(durable: durable), on: publish)
        }
        for answer in forwarder.takeAnswers() {
            sendReply(answer.route.replyFrames(answer.body), on: control, engine: engine)
        }
        let now = ContinuousClock.now
        guard now >= nextForwardCheck else { return }
        nextForwardCheck = now + .milliseconds(250)
        let view = exchange.view
        clusterView = view
        // While the leases may have run out, requests kept for this node's partitions wait.
        let served = checkLease(engine: engine) ? engine.servedPartitions ?? [] : []
        for answer in forwarder.update(view: view, served: served, now: now) {
            sendReply(answer.route.replyFrames(answer.body), on: control, engine: engine)
        }
        engine.statusMembers["cluster"] = clusterStatus(view, forwarder: forwarder)
        // Of several loops, the first records the node's leases; each its own forwarding.
        metrics?.recordCluster(view, forwarder: forwarder, leases: (slot?.index ?? 0) == 0)
    }

    /// Where a message received on `route` (nil: ingest) from `principal` goes: applied here
    /// (true), or forwarded to the node that owns its feed for that client, or refused because
    /// none does (false: handled).
    func isServedHere(_ body: [UInt8], size: Int, route: ReplyRoute?, principal: String? = nil) throws -> Bool {
        guard let forwarder, let engine, let control, let publish, let served = engine.servedPartitions,
            body.count == size
        else { return true }
        let routing = RequestRouting(body: body)
        // While its leases may have run out, the node serves none of its partitions: their
        // requests go as those for a partition without an owner (`leaseGate`).
        guard let partition = routing.partition, !served.contains(partition) || leaseGate?.isCurrent == false
        else { return true }
        let owner = clusterView?.owner(of: partition)
        func refuse(_ message: String, on route: ReplyRoute, code: ErrorCode = .partitionUnavailable) {
            sendReply(route.replyFrames(routing.refusal(code, message)), on: control, engine: engine)
        }
        let client: [UInt8]?
        switch clientFrame(for: principal) {
        case .success(let frame): client = frame
        case .failure(let refusal):
            if let route {
                refuse(refusal.message, on: route, code: .forbidden)
            } else {
                try publishAll([routing.refusalEvent(.forbidden, refusal.message)], on: publish)
            }
            return false
        }
        if let owner, let mismatch = forwarder.keyMismatch(owner) {
            // Its CURVE handshake would fail: the request would wait for nothing.
            let message = "\(mismatch); nothing was applied"
            if let route {
                refuse(message, on: route)
            } else {
                try publishAll([routing.refusalEvent(.partitionUnavailable, message)], on: publish)
            }
        } else if let route, ClusterForwarder.isForwarded(route, behindFront: slot != nil) {
            // Sent by a node whose view differs from this one's for a moment: not passed on.
            refuse(
                "\(partition) is not served by the node it was forwarded to (its lease is moving); nothing was applied, send it again shortly",
                on: route)
        } else if let route, owner == nil, let failure = clusterView?.storeFailure {
            // This node cannot read the leases: nothing says an owner is coming.
            refuse(
                "no node serves \(partition) that this node knows of: it cannot reach the store (\(failure)); nothing was applied, send it again later",
                on: route)
        } else if let route {
            // Without an owner, the request waits for the partition's next one.
            if let refusal = forwarder.forward(
                control: body, client: client, route: route, routing: routing, partition: partition, owner: owner)
            {
                sendReply(route.replyFrames(refusal), on: control, engine: engine)
            }
        } else if owner.map({ forwarder.forward(ingest: body, client: client, owner: $0) }) != true {
            let message =
                owner.map {
                    "node \($0.node), which owns \(partition), takes no more ingest for now; nothing was applied"
                } ?? unownedMessage(partition)
            try publishAll([routing.refusalEvent(.partitionUnavailable, message)], on: publish)
        }
        return false
    }

    /// Checks the node's lease deadline against the clock (once per pass) and tells the
    /// engine, which refuses requests for every partition while it passed; returns whether the
    /// leases surely still hold (true when rowcastd runs alone).
    @discardableResult
    func checkLease(engine: Engine) -> Bool {
        guard var gate = leaseGate else { return true }
        let current = gate.check()
        leaseGate = gate
        engine.servesNoPartition = !current
        return current
    }

    /// Leaves the cluster at a stop, after the last commits: hands every lease back so the other
    /// nodes take the partitions over at their next round. One loop of several only answers
    /// what it forwarded: its group leaves once every loop stopped.
    func leaveCluster(control: Socket, engine: Engine) {
        for answer in forwarder?.abandon() ?? [] {
            sendReply(answer.route.replyFrames(answer.body), on: control, engine: engine)
        }
        forwarder?.close()
        forwarder = nil
        if let clusterExchange { poller.unregister(fileDescriptor: clusterExchange.wakeDescriptor) }
        clusterExchange = nil
        // Of several loops, the group leaves once every loop stopped serving.
        cluster?.stop(leaving: true)
        cluster = nil
    }

    private func unownedMessage(_ partition: Partition) -> String {
        "no node serves \(partition) right now (its lease is moving between nodes); nothing was applied, send it again shortly"
    }

    /// The plugins this node runs, as the other nodes compare them: each plugin's name,
    /// version and file size, sorted.
    func pluginSummary() -> String {
        guard let renderer else { return "" }
        return Self.pluginRenderer(of: renderer).map { plugins in
            plugins.loadedPlugins.map { "\($0.name)@\($0.version):\($0.fileIdentity.size)" }.sorted()
                .joined(separator: ",")
        } ?? ""
    }

    /// `status`'s `cluster` member.
    func clusterStatus(_ view: ClusterView, forwarder: ClusterForwarder) -> JSONValue {
        var owned: [String: [JSONValue]] = [:]
        for lease in view.leases {
            guard let owner = lease.owner, (lease.expiresIn ?? .zero) > .zero else { continue }
            owned[owner, default: []].append(.number(Double(lease.partition.index)))
        }
        let nodes: [JSONValue] = view.nodes.map { node in
            let endpoints = NodeEndpoints(json: node.endpoints)
            return [
                "name": .string(node.name),
                "control": endpoints.map { .string($0.control) } ?? .null,
                "ingest": endpoints.map { .string($0.ingest) } ?? .null,
                "publish": endpoints.map { .string($0.publish) } ?? .null,
                "heartbeatAgeMs": .number(Double(node.heartbeatAge.wholeMilliseconds)),
                "partitions": .array(owned[node.name] ?? []),
                "pluginsDiffer": .bool(view.pluginMismatches.contains(node.name)),
                "serverKey": endpoints?.serverKey.map(JSONValue.string) ?? .null,
                // A node with another CURVE setting or server key cannot be forwarded to.
                "serverKeyDiffers": .bool(endpoints.map { $0.serverKey != serverKeyPair?.publicKey } ?? false),
            ]
        }
        let tokens: [JSONValue] = view.held.sorted { $0.key < $1.key }.map {
            ["partition": .number(Double($0.key.index)), "token": .number(Double($0.value))]
        }
        return [
            "node": .string(view.node),
            "leaseMs": .number(Double(configuration.leaseMilliseconds)),
            "nodes": .array(nodes),
            "held": .array(tokens),
            "unowned": .number(Double(Partition.count - owned.values.reduce(0) { $0 + $1.count })),
            "forwarding": .number(Double(forwarder.waitingCount)),
            "storeFailure": view.storeFailure.map(JSONValue.string) ?? .null,
        ]
    }
}

/// A cluster change that came while batches were held in the pipeline (a bug: the loop
/// flushes before it applies one).
enum ClusterStateError: Error {
    case pipelineBusy
}
