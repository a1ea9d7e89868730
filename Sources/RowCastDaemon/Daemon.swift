import Logging
import RowCastEngine
import RowCastPluginHosting
import RowCastPostgres
import RowCastStore
import RowCastJSON
import RowCastSupport
import RowCastWire
import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// rowcastd itself: binds the three sockets, loads the plugins, and runs the loop that reads a
/// batch, hands it to the engine, publishes the deltas and sends the replies.
///
/// Not `Sendable`: every socket, the engine and the plugins belong to the thread that calls
/// `start` and `run` (`DaemonService` gives it a thread of its own). Other threads talk to it
/// only through its `StopSignal`.
public final class Daemon {
    /// The configuration in force: the one it started with, then the last one a reload applied
    /// (settings that need a restart keep their start-up values).
    public internal(set) var configuration: DaemonConfiguration
    /// The endpoints actually bound (wildcard ports resolved), once `start` returned.
    public private(set) var boundEndpoints: (ingest: String, control: String, publish: String) = ("", "", "")

    let logger: Logger
    let environment: DaemonEnvironment
    let loadRenderer: (PluginScan, (any RowRendering)?) -> any RowRendering
    var renderer: (any RowRendering)?
    let context: Context
    var ingest: Socket?
    var control: Socket?
    var publish: Socket?
    let poller = Poller()
    var engine: Engine?
    var durable: DurableEngine?
    var restoreReports: [Publication] = []
    /// The loop's decisions: how each pass waits and what it reads (`LoopStateMachine`).
    var loop: LoopStateMachine
    /// The metrics, when the environment gives a factory.
    let metrics: DaemonMetrics?
    /// Connection events of the publish socket, for `rowcast_subscribers`.
    var publishMonitor: SocketMonitor?
    /// Writes snapshot replies off the loop thread.
    private let snapshotWriter = SnapshotWriter()
    /// Decides when `position` events go out.
    let positions = PositionAnnouncer()
    var watchdog: WatchdogSchedule?
    /// When the watchdog last checked that every loop passed (`LoopPassClock` nanoseconds).
    var watchdogCheckedAt: Int64 = 0
    /// The clock this loop's passes tick, for `/healthz` and the watchdog.
    let passClock: LoopPassClock?
    var statusSummary = StatusSummary()
    /// The server's CURVE key pair, when CURVE is on.
    var serverKeyPair: ServerKeyPair?
    /// The ZAP handler, when CURVE is on.
    var zap: ZAPHandler?
    /// Subscriptions refused because the client may not read them.
    var refusedSubscriptions = 0
    /// Messages refused for their client frame (``ForwardedClient``): a client posing as another.
    var refusedClientFrames = 0
    var reloadFailure: String?
    /// The last reload applied: its decision's generation and what it answered.
    var lastReload: (generation: Int, outcome: Result<JSONObject, RowCastError>)?
    /// The locks on the `ipc://` socket paths bound, held until `close`.
    private var socketLocks: [PIDLockFile] = []
    /// Outputs released while plugin hosts rendered that must wait for the loop's next `send`
    /// (they defer a request; see `Daemon+RenderWait.swift`).
    var earlyOutputs: [EngineOutput] = []
    /// The reply routes of the control requests a parked batch carried into the next one, in
    /// order (see `Daemon+RenderWait.swift`).
    var carriedRoutes: [ReplyRoute] = []
    /// The plugin hosts' descriptors the loop's poller watches while carried messages wait.
    var watchedHostDescriptors: [Int32] = []
    /// A cluster node's leases (`cluster.node_name`), nil when rowcastd runs alone or as one
    /// engine loop of several (their group owns the node's one coordinator).
    var cluster: ClusterCoordinator?
    /// Where this loop takes the lease changes of its partitions from the coordinator, on a
    /// cluster node; nil otherwise.
    var clusterExchange: ClusterExchange?
    /// A cluster node's forwarding of requests for feeds other nodes own.
    var forwarder: ClusterForwarder?
    /// The cluster as the loop last took it from the coordinator.
    var clusterView: ClusterView?
    /// On a cluster node: whether its leases surely still hold, checked once per pass; the
    /// loop serves none of its partitions while they may have run out.
    var leaseGate: LeaseGate?
    /// When the loop next moves forwarded requests whose partition changed owner.
    var nextForwardCheck = ContinuousClock.now
    /// Its place among several engine loops (`engine.threads`), nil when it is the only one.
    let slot: EngineLoopSlot?

    /// A daemon that loads its plugins from the configured directories, into plugin hosts or
    /// into itself as `plugin_isolation` says.
    public convenience init(
        configuration: DaemonConfiguration, logger: Logger, environment: DaemonEnvironment = DaemonEnvironment()
    ) throws {
        try self.init(configuration: configuration, logger: logger, environment: environment, slot: nil)
    }

    /// A daemon as above, as one engine loop of several when `slot` is given.
    convenience init(
        configuration: DaemonConfiguration, logger: Logger, environment: DaemonEnvironment, slot: EngineLoopSlot?
    ) throws {
        switch configuration.pluginIsolation {
        case .process:
            let settings = PluginHostSettings(
                executable: configuration.pluginHost, callTimeoutMilliseconds: configuration.pluginTimeoutMilliseconds,
                memoryMegabytes: configuration.pluginMemoryMegabytes, user: configuration.pluginUser,
                unconfinedPlugins: configuration.pluginUnconfined
            )
            try self.init(configuration: configuration, logger: logger, environment: environment, slot: slot) {
                scan, previous in
                HostedRenderer.load(
                    scan: scan, settings: settings, logger: logger, previous: previous as? HostedRenderer)
            }
        case .inProcess:
            logger.warning(
                "plugin_isolation is in_process: plugins run inside rowcastd, unconfined (no seccomp, no Landlock, no limits, a crash stops rowcastd); use it for trusted plugins only"
            )
            try self.init(configuration: configuration, logger: logger, environment: environment, slot: slot) {
                scan, previous in
                PluginRenderer.load(scan: scan, logger: logger, previous: previous as? PluginRenderer)
            }
        }
    }

    /// A daemon that loads its renderer with `loadRenderer` (the plugin files a scan of the
    /// plugin directories found, the previous renderer).
    public convenience init(
        configuration: DaemonConfiguration, logger: Logger, environment: DaemonEnvironment = DaemonEnvironment(),
        loadRenderer: @escaping (PluginScan, (any RowRendering)?) -> any RowRendering
    ) throws {
        try self.init(
            configuration: configuration, logger: logger, environment: environment, slot: nil,
            loadRenderer: loadRenderer)
    }

    /// A daemon that loads its renderer with `loadRenderer`, as one engine loop of several
    /// when `slot` is given.
    init(
        configuration: DaemonConfiguration, logger: Logger, environment: DaemonEnvironment, slot: EngineLoopSlot?,
        loadRenderer: @escaping (PluginScan, (any RowRendering)?) -> any RowRendering
    ) throws {
        self.slot = slot
        self.configuration = configuration
        self.logger = logger
        self.environment = environment
        self.loadRenderer = loadRenderer
        watchdog = environment.watchdog
        passClock = environment.health?.clock(of: slot?.index ?? 0)
        metrics = environment.metrics.map(DaemonMetrics.init(factory:))
        loop = LoopStateMachine(settings: LoopStateMachine.Settings(configuration, slot: slot), now: .now)
        context = try slot?.context ?? Context()
    }

    /// Loads the plugins, opens the durable store and loads every feed from it, then binds
    /// every socket, in that order; `run` announces readiness after it, so READY=1 means the
    /// state is loaded. Throws a `StoreError` naming the file when the state cannot be used,
    /// and a `ZeroMQError` naming the endpoint when one cannot be bound (in use, or malformed).
    public func start() throws {
        let renderer = makeRenderer(configuration, previous: nil)
        self.renderer = renderer
        let engine = Engine(
            renderer: renderer, decoder: RequestDecoder(maximumMessageBytes: configuration.maximumMessageBytes),
            logger: logger)
        engine.limits = configuration.stateLimits
        engine.writesSnapshotsLater = true
        self.engine = engine
        // Of several loops, the group runs the node's coordinator and opens its store.
        let clusterStore = slot == nil ? try clusterStoreURL() : nil
        let tokens = clusterStore.map { _ in LeaseTokens(node: configuration.nodeName) }
        let store: any FeedStore
        if let slot {
            // One loop of several: the feeds of its partitions, in the store the loops share;
            // on a cluster node, those its leases give it once the group joined the cluster.
            engine.servedPartitions = slot.cluster == nil ? slot.partitions : []
            engine.ledger.sharedOrder = slot.ledgerOrder
            engine.sharedOwners = slot.owners
            store = slot.store
            metrics?.loopTotals = (slot.totals, slot.index)
        } else if let clusterStore, let tokens {
            // A node loads the partitions its leases give it once its sockets are bound.
            engine.servedPartitions = []
            store = try openClusterStore(url: clusterStore, tokens: tokens)
        } else {
            store = try configuration.openStore(logger: logger)
        }
        // Of several loops sharing one PostgreSQL store, the first reports its round trips.
        if let postgres = store as? PostgreSQLFeedStore
            ?? (slot?.index == 0 ? slot?.store.underlying as? PostgreSQLFeedStore : nil)
        {
            metrics?.storeRoundTrips = { postgres.roundTrips }
        }
        let durable = DurableEngine(engine: engine, store: store, logger: logger)
        durable.ingestCommitInterval = .microseconds(configuration.commitIntervalMicroseconds)
        if let metrics { durable.commitObserver = { metrics.recordCommit(duration: $0, messages: $1) } }
        observePlugins(of: renderer)
        var progress = LoadProgress()
        reportLoad(&progress, done: 0, total: 0)
        restoreReports = try durable.start { done, total in reportLoad(&progress, done: done, total: total) }
        self.durable = durable

        let permissions = try SocketPermissions(configuration, file: environment.configurationFile)
        try startCurve(context: context)
        let endpoints =
            slot?.endpoints
            ?? (
                ingest: configuration.ingestEndpoint, control: configuration.controlEndpoint,
                publish: configuration.publishEndpoint
            )
        let zmqLimit = Int64(configuration.hardMessageBytes)
        let ingest = try Socket(context: context, type: .pull)
        try ingest.setOption(.linger, 0)
        try ingest.setOption(.receiveHighWaterMark, configuration.receiveHighWaterMark)
        try ingest.setOption(.maxMessageSize, zmqLimit)
        try secure(ingest, endpoint: endpoints.ingest)
        try lockSocketPath(of: endpoints.ingest)
        try permissions.bind(ingest, to: endpoints.ingest)
        self.ingest = ingest

        let control = try Socket(context: context, type: .router)
        try control.setOption(.linger, configuration.lingerMilliseconds)
        try control.setOption(.receiveHighWaterMark, configuration.receiveHighWaterMark)
        // Replies queued per client are bounded; with ROUTER_MANDATORY a full queue (or a
        // client gone) makes the send fail instead of dropping silently, so drops are counted.
        // Behind the front of several loops, the one peer carries every client's replies.
        try control.setOption(.sendHighWaterMark, slot == nil ? configuration.clientReplyQueue : 0)
        try control.setOption(.routerMandatory, true)
        try control.setOption(.maxMessageSize, zmqLimit)
        try secure(control, endpoint: endpoints.control)
        try lockSocketPath(of: endpoints.control)
        try permissions.bind(control, to: endpoints.control)
        self.control = control

        // An XPUB, so that rowcastd sees every subscription (verbose: repeated ones too) and
        // answers a feed's with its position; with CURVE it applies each subscription itself,
        // after checking that the subscribing client may read it (Daemon+Curve.swift).
        let publish = try Socket(context: context, type: .xpub)
        try publish.setOption(zap == nil ? .xpubVerbose : .xpubManual, true)
        try publish.setOption(.linger, configuration.lingerMilliseconds)
        try publish.setOption(.sendHighWaterMark, configuration.publishHighWaterMark)
        // The front's public socket has the subscribers when loops share it (`EngineThreadGroup`).
        if metrics != nil, slot == nil {
            publishMonitor = try SocketMonitor(watching: publish, events: [.accepted, .disconnected])
        }
        try secure(publish, endpoint: endpoints.publish)
        try lockSocketPath(of: endpoints.publish)
        try permissions.bind(publish, to: endpoints.publish)
        self.publish = publish

        poller.register(ingest, for: .readable)
        poller.register(control, for: .readable)
        poller.register(publish, for: .readable)
        poller.register(fileDescriptor: durable.pacingDescriptor, for: .readable)
        if let zap {
            if let socket = zap.socket { poller.register(socket, for: .readable) }
            engine.accessCheck = KeyringAccess(keyring: zap.keyring)
        }
        boundEndpoints = (try ingest.lastEndpoint, try control.lastEndpoint, try publish.lastEndpoint)
        engine.statusMembers = [
            "version": .string(RowCastVersion.current),
            "endpoints": [
                "ingest": .string(boundEndpoints.ingest), "control": .string(boundEndpoints.control),
                "publish": .string(boundEndpoints.publish),
            ],
            "state": [
                "directory": .string(configuration.stateDirectory),
                "durability": .string(configuration.durability.rawValue),
                "store": .string(configuration.storeKind),
            ],
            "limits": Self.limitsMember(configuration),
        ]
        updateCurveStatus(engine: engine)
        if let clusterStore, let tokens {
            try joinCluster(url: clusterStore, tokens: tokens, durable: durable, context: context)
        } else if let coordinator = slot?.cluster, let slot {
            joinCluster(asLoop: slot.index, of: coordinator, context: context)
        }
        logger.debug(
            "sockets bound",
            metadata: [
                "ingest": "\(boundEndpoints.ingest)", "control": "\(boundEndpoints.control)",
                "publish": "\(boundEndpoints.publish)",
                "plugins": "\(renderer.pluginCount)",
            ])
    }

    /// The one-line ready message printed on standard output once `start` returned.
    public var readyLine: String {
        "rowcastd ready ingest=\(boundEndpoints.ingest) control=\(boundEndpoints.control) publish=\(boundEndpoints.publish)"
            + (environment.httpAddress.map { " http=\($0)" } ?? "")
    }

    /// Announces readiness (the ready line, READY=1), then runs the loop until `signal` asks
    /// for a stop; commits and answers what it already read, sends STOPPING=1 and closes the
    /// sockets (waiting at most the linger time for queued messages).
    ///
    /// The loop is pipelined with the commit thread (see `DurableEngine+Pipeline.swift`): while
    /// one group of batches is being committed, the loop reads and applies the next messages
    /// without waiting, then waits for the commit and sends what it released. A trickle of
    /// ingest is committed at most every `commit_interval_us` (see `DurableEngine.commitDue`).
    public func run(until signal: StopSignal) throws {
        guard let durable, let ingest, let control, let publish else {
            preconditionFailure("Daemon.run called before start")
        }
        let engine = durable.engine
        // Several loops are announced once, by their group, when all of them are ready.
        if slot == nil { announceReady(engine: engine) }
        positions.reset(to: engine.allPositions)
        loop.published(at: .now)
        try publishAll(restoreReports, on: publish)
        restoreReports = []
        var messages: [IncomingMessage] = []
        var envelopes: [ControlEnvelope] = []
        messages.reserveCapacity(configuration.batchLimit)
        while !signal.isStopRequested || hasUnreadInput(ingest: ingest, control: control) {
            messages.removeAll(keepingCapacity: true)
            envelopes = []
            if loop.waitsForSnapshots(inFlight: snapshotWriter.inFlight) {
                snapshotWriter.waitForProgress(timeout: .milliseconds(5))
                sendWrittenSnapshots(control: control, engine: engine)
            }
            let ready: PassReadiness
            let reads: LoopStateMachine.Reads
            switch loop.passBegan(at: .now, pipeline: pipelineState(durable), deadlines: deadlines()) {
            case .none:
                ready = .all
                reads = loop.waitEnded(at: .now, ingestReadable: true, controlReadable: true)
            case .poll(let milliseconds, let watchesIngest, let holdUntil):
                if let holdUntil { durable.holdIngest(until: holdUntil) }
                poller.register(ingest, for: watchesIngest ? .readable : [])
                watchHosts(durable.carriedWait?.descriptors ?? [])
                ready = try poller.poll(timeoutMilliseconds: milliseconds) > 0 ? .polled(poller) : .none
                if poller.events(ofFileDescriptor: durable.pacingDescriptor).contains(.readable) {
                    durable.takePacingExpiry()
                }
                reads = loop.waitEnded(
                    at: .now, ingestReadable: ready.includes(ingest), controlReadable: ready.includes(control))
            }
            if let socket = zap?.socket, ready.includes(socket) { try serveZAP(engine: engine) }
            if ready.includes(publish) { try serveSubscriptions(on: publish, engine: engine) }
            // Before reading: what the pass reads is served only while the leases surely hold.
            if leaseGate != nil { checkLease(engine: engine) }
            if reads.ingest || reads.control {
                try read(
                    ingest: reads.ingest ? ingest : nil, control: reads.control ? control : nil,
                    into: &messages, envelopes: &envelopes)
            }
            // A full batch means more is waiting: its commit waits for the next batch to join it
            // (`DurableEngine.holdsForBacklog`); a short or empty read ends the hold.
            durable.ingestBacklog = loop.batchRead(messages: messages.count, readIngest: reads.ingest)
            if !messages.isEmpty || (durable.hasCarriedMessages && durable.carriedCanAdvance) {
                // One clock read per batch, not per message: the batch's messages were read
                // back to back, just before. The receipt travels with the batch.
                let receipt = BatchReceipt(receivedAt: .now, replyRoutes: carriedRoutes + envelopes.map(\.route))
                carriedRoutes = []
                durable.begin(messages, receipt: receipt)
                if try applyBegunBatch(durable: durable, receipt: receipt, control: control, publish: publish) {
                    // A reload must see exactly the batches before it: commit and answer them first.
                    try settleCarried(durable: durable, control: control, publish: publish)
                    try send(try durable.flush(), control: control, publish: publish, engine: engine)
                }
            }
            // Rows restored stale are rendered again when the pass read nothing (one chunk).
            if messages.isEmpty, durable.hasStaleRenders, !durable.hasCarriedMessages { durable.submitStaleRender() }
            if durable.hasHeldOutputs {
                let outputs =
                    switch loop.collect(backlog: durable.ingestBacklog) {
                    case .finished: try durable.collectFinished()
                    case .committed: try durable.collectCommitted(writingHere: true)
                    }
                try send(outputs, control: control, publish: publish, engine: engine)
            }
            if signal.takeReloadRequest() {
                try settleCarried(durable: durable, control: control, publish: publish)
                try send(try durable.flush(), control: control, publish: publish, engine: engine)
                _ = try reload(engine: engine, publish: publish)
            }
            try serveCluster(durable: durable, control: control, publish: publish, engine: engine)
            sendWrittenSnapshots(control: control, engine: engine)
            try publishAll(
                positions.due(at: .now, interval: .milliseconds(configuration.heartbeatMilliseconds)), on: publish)
            try heartbeatIfIdle(engine: engine, publish: publish)
            keepAlive(engine: engine)
        }
        environment.health?.enter(.draining)
        try settleCarried(durable: durable, control: control, publish: publish)
        try send(try durable.flush(), control: control, publish: publish, engine: engine)
        snapshotWriter.waitUntilWritten()
        sendWrittenSnapshots(control: control, engine: engine)
        leaveCluster(control: control, engine: engine)
        if slot == nil { announceStopping(engine: engine) }
        // A stop that could not be recorded (a full disk) is not a clean one: the exit status
        // says so. Everything acknowledged is still in the write-ahead log.
        if let failure = close() { throw failure }
    }

    /// Whether a loop of several still has messages its front handed over: at a stop it takes
    /// them all (the front stopped reading first), so what every loop applied together is what
    /// the front read, a prefix of each connection's requests. A lone loop stops at once.
    private func hasUnreadInput(ingest: Socket, control: Socket) -> Bool {
        guard slot != nil else { return false }
        return (try? ingest.events)?.contains(.readable) == true || (try? control.events)?.contains(.readable) == true
    }

    /// Closes every socket (queued replies and deltas get up to the linger time to leave),
    /// then records a clean stop in the store and closes it; returns why the clean stop could
    /// not be recorded, if so.
    @discardableResult
    public func close() -> StoreError? {
        ingest?.close()
        control?.close()
        publishMonitor?.close()
        publish?.close()
        ingest = nil
        control = nil
        publishMonitor = nil
        publish = nil
        zap?.socket?.close()
        zap = nil
        for lock in socketLocks { lock.release() }
        socketLocks = []
        let failure = durable?.close()
        durable = nil
        Self.pluginRenderer(of: renderer).flatMap { $0 as? HostedRenderer }?.stopHosts()
        return failure
    }

    /// Locks the socket path of an `ipc://` endpoint before its bind (`SocketInUseError.lock`),
    /// so a second rowcastd given the same path stops instead of taking the socket away.
    private func lockSocketPath(of endpoint: String) throws(SocketInUseError) {
        guard let path = SocketPermissions.socketPath(of: endpoint), path != "*" else { return }
        socketLocks.append(try SocketInUseError.lock(path))
    }

    /// The most control requests read in one pass. Their replies (a snapshot can be large) are
    /// all built before any is sent, so this bounds the memory one pass of queries takes,
    /// whatever a client pipelines (docs/OPERATIONS.md, "Memory").
    static let controlRequestsPerPass = 256

    /// Reads at most `batchLimit` messages (and at most `controlRequestsPerPass` control
    /// requests), alternating between the two sockets so neither starves the other. Of a frame
    /// over the size limit only its first bytes are kept (enough to read the `req` of a
    /// `too_large` reply), so an oversized message costs no more memory than one at the limit.
    ///
    /// A socket found empty is not tried again in the same pass: libzmq answers a receive
    /// that finds nothing with two system calls (`getpid`, and a `poll` of its mailbox), and
    /// trying the idle control socket after every ingest message cost two system calls per item
    /// under load. What arrives meanwhile is read in the next pass. A nil socket is not tried
    /// at all (the pass's wait found nothing on it).
    private func read(
        ingest: Socket?, control: Socket?, into messages: inout [IncomingMessage], envelopes: inout [ControlEnvelope]
    ) throws {
        // Carried control requests take the first reply tokens of the next batch.
        let tokenBase = carriedRoutes.count
        var budget = configuration.batchLimit
        var controlBudget = control == nil ? 0 : max(0, Self.controlRequestsPerPass - snapshotWriter.inFlight)
        let keep = max(configuration.maximumMessageBytes + 1, 4096)
        var ingestDrained = ingest == nil
        while budget > 0 && !(ingestDrained && controlBudget == 0) {
            if !ingestDrained, let ingest {
                if let frame = try receiveIngest(ingest, keepingAtMost: keep) {
                    // A cluster node sends what another node owns to that node.
                    if let sender = try sender(ofIngest: frame),
                        try forwarder == nil
                            || isServedHere(frame.bytes, size: frame.size, route: nil, principal: sender.principal)
                    {
                        messages.append(
                            IncomingMessage(
                                origin: .ingest, body: frame.bytes, frameCount: sender.frameCount, size: frame.size,
                                principal: sender.principal))
                    }
                    budget -= 1
                } else {
                    ingestDrained = true
                }
            }
            if budget > 0, controlBudget > 0, let control {
                if let received = try receive(control, keepingAtMost: keep) {
                    controlBudget -= 1
                    let envelope = ControlEnvelope(received.message)
                    // Behind the front of several loops, its header names the client.
                    let userID = slot?.curve == nil ? received.principal : envelope.frontUserID
                    if let sender = sender(of: envelope, userID: userID),
                        try forwarder == nil || sender.frameCount != 1
                            || isServedHere(
                                envelope.body, size: envelope.bodySize, route: envelope.route,
                                principal: sender.principal)
                    {
                        messages.append(
                            IncomingMessage(
                                origin: .control(replyTo: tokenBase + envelopes.count), body: envelope.body,
                                frameCount: sender.frameCount, size: envelope.bodySize,
                                principal: sender.principal, connection: envelope.connection)
                        )
                        envelopes.append(envelope)
                    }
                    budget -= 1
                } else {
                    controlBudget = 0  // drained: not tried again in this pass
                }
            }
        }
    }

    /// One waiting ingest message's first frame and, with CURVE on, the User-Id of its
    /// connection; behind the front of several loops, the User-Id the front's first frame
    /// gives (`FrontIngestFrames`).
    private func receiveIngest(_ ingest: Socket, keepingAtMost keep: Int) throws -> FirstFrame? {
        guard slot?.curve != nil else {
            return try ingest.receiveFirstFrame(
                dontWait: true, keepingAtMost: keep, property: principalProperty,
                keepingSecondAtMost: ForwardedClient.maximumFrameBytes)
        }
        return try ingest.receiveMultipart(dontWait: true, keepingAtMost: keep).map {
            FrontIngestFrames.unwrap($0, secondLimit: ForwardedClient.maximumFrameBytes)
        }
    }

    /// One waiting message and, with CURVE on, the client its connection authenticated
    /// (User-Id; nil for ipc:// connections, which are not checked).
    private func receive(
        _ socket: Socket, keepingAtMost keep: Int
    ) throws -> (message: ReceivedMessage, principal: String?)? {
        guard
            let received = try socket.receiveMultipart(dontWait: true, keepingAtMost: keep, property: principalProperty)
        else { return nil }
        return (received, Self.principal(received.property))
    }

    /// Sends the outputs of committed batches, oldest first. For each: publishes first, then
    /// replies (a client that got its ack finds the delta already sent), then answers its
    /// deferred requests (reload).
    func send(_ outputs: [EngineOutput], control: Socket, publish: Socket, engine: Engine) throws {
        let outputs = earlyOutputs + outputs
        earlyOutputs = []
        for output in outputs {
            guard let receipt = output.receipt else {
                preconditionFailure("Daemon.send: a batch submitted without its receipt")
            }
            let routes = receipt.replyRoutes
            try publishAll(output.publications, on: publish)
            if let metrics, !output.positions.isEmpty { metrics.recordPublishLatency(.now - receipt.receivedAt) }
            positions.record(output.positions)
            for reply in output.replies {
                sendReply(routes[reply.token].replyFrames(reply.body), on: control, engine: engine)
            }
            for deferred in output.deferred {
                try answerReload(
                    deferred, route: routes[deferred.token], engine: engine, control: control, publish: publish)
            }
            for job in output.snapshots { snapshotWriter.submit(job, route: routes[job.token]) }
        }
    }

    /// Sends the snapshot replies the snapshot writer has finished.
    private func sendWrittenSnapshots(control: Socket, engine: Engine) {
        for (route, replies) in snapshotWriter.takeFinished() {
            for body in replies { sendReply(route.replyFrames(body), on: control, engine: engine) }
        }
    }

    func publishAll(_ publications: [Publication], on publish: Socket) throws {
        guard !publications.isEmpty else { return }
        var bytes = 0
        for publication in publications {
            _ = try publish.send([publication.topic, publication.body], dontWait: true)
            bytes &+= publication.topic.count &+ publication.body.count
        }
        metrics?.countPublished(bytes: bytes)
        loop.published(at: .now)
    }

    private func heartbeatIfIdle(engine: Engine, publish: Socket) throws {
        guard loop.heartbeatDue(at: .now) else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let milliseconds = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
        let body: JSONValue = [
            "event": "heartbeat", "time": .number(Double(milliseconds)),
            "uptime": .number(engine.uptimeSeconds.rounded()),
        ]
        try publishAll([Publication(topic: Topic.heartbeat, body: body.serialized())], on: publish)
    }

    /// What the pipeline says at the start of a pass, for the loop's decisions.
    private func pipelineState(_ durable: DurableEngine) -> LoopStateMachine.Pipeline {
        let isCommitting = durable.isCommitting
        guard !isCommitting else {
            return LoopStateMachine.Pipeline(
                isCommitting: true, holdsForBacklog: false, commitDue: nil, ingestHeldUntil: nil)
        }
        return LoopStateMachine.Pipeline(
            isCommitting: false, holdsForBacklog: durable.holdsForBacklog, commitDue: durable.commitDue,
            ingestHeldUntil: durable.ingestHeldUntil)
    }

    /// The pass's other deadlines, for the loop's decisions.
    private func deadlines() -> LoopStateMachine.Deadlines {
        LoopStateMachine.Deadlines(
            watchdog: watchdog?.timeUntilDue(at: .now),
            positionTick: positions.nextTick(interval: .milliseconds(configuration.heartbeatMilliseconds)),
            snapshotsBusy: snapshotWriter.isBusy,
            backgroundWork: (durable?.hasStaleRenders ?? false) && !(durable?.hasCarriedMessages ?? false),
            carriedRender: durable?.carriedWait?.within)
    }
}

extension LoopStateMachine.Settings {
    /// The loop settings of `configuration`.
    init(_ configuration: DaemonConfiguration, slot: EngineLoopSlot? = nil) {
        self.init(
            batchLimit: configuration.batchLimit, heartbeat: .milliseconds(configuration.heartbeatMilliseconds),
            controlRequestsPerPass: Daemon.controlRequestsPerPass)
        // Of several loops, the first sends the daemon's heartbeats.
        sendsHeartbeats = slot.map { $0.index == 0 } ?? true
    }
}
