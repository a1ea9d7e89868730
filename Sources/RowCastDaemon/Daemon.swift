import Logging
import RowCastCore
import RowCastKit
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
    let loadRenderer: ([String], (any RowRendering)?) -> any RowRendering
    var renderer: (any RowRendering)?
    private let context: Context
    var ingest: Socket?
    var control: Socket?
    var publish: Socket?
    private let poller = Poller()
    var engine: Engine?
    var durable: DurableEngine?
    private var restoreReports: [Publication] = []
    /// The control envelopes of each batch whose output the pipeline holds, oldest first.
    private var heldEnvelopes: [[ControlEnvelope]] = []
    private var lastPublication = ContinuousClock.now
    var watchdog: WatchdogSchedule?
    var statusSummary = StatusSummary()
    var reloadFailure: String?

    /// A daemon that loads its plugins from the configured directories, into plugin hosts or
    /// into itself as `plugin_isolation` says.
    public convenience init(configuration: DaemonConfiguration, logger: Logger, environment: DaemonEnvironment = DaemonEnvironment()) throws {
        switch configuration.pluginIsolation {
        case .process:
            let settings = PluginHostSettings(
                executable: configuration.pluginHost, callTimeoutMilliseconds: configuration.pluginTimeoutMilliseconds,
                memoryMegabytes: configuration.pluginMemoryMegabytes, user: configuration.pluginUser
            )
            try self.init(configuration: configuration, logger: logger, environment: environment) { directories, previous in
                HostedRenderer.load(directories: directories, settings: settings, logger: logger, previous: previous as? HostedRenderer)
            }
        case .inProcess:
            try self.init(configuration: configuration, logger: logger, environment: environment) { directories, previous in
                PluginRenderer.load(directories: directories, logger: logger, previous: previous as? PluginRenderer)
            }
        }
    }

    /// A daemon that loads its renderer with `loadRenderer` (directories, previous renderer).
    public init(configuration: DaemonConfiguration, logger: Logger, environment: DaemonEnvironment = DaemonEnvironment(), loadRenderer: @escaping ([String], (any RowRendering)?) -> any RowRendering) throws {
        self.configuration = configuration
        self.logger = logger
        self.environment = environment
        self.loadRenderer = loadRenderer
        watchdog = environment.watchdog
        context = try Context()
    }

    /// Loads the plugins, opens the durable store and loads every feed from it, then binds
    /// every socket, in that order; `run` announces readiness after it, so READY=1 means the
    /// state is loaded. Throws a `StoreError` naming the file when the state cannot be used,
    /// and a `ZeroMQError` naming the endpoint when one cannot be bound (in use, or malformed).
    public func start() throws {
        let renderer = loadRenderer(configuration.pluginDirectories, nil)
        self.renderer = renderer
        let engine = Engine(renderer: renderer, decoder: RequestDecoder(maximumMessageBytes: configuration.maximumMessageBytes), logger: logger)
        self.engine = engine
        let store = try SQLiteFeedStore(directory: configuration.stateDirectory, synchronous: configuration.durability.synchronous,
                                        acceptStateLoss: configuration.acceptStateLoss, logger: logger)
        let durable = DurableEngine(engine: engine, store: store, logger: logger)
        durable.ingestCommitInterval = .microseconds(configuration.commitIntervalMicroseconds)
        restoreReports = try durable.start()
        self.durable = durable

        let zmqLimit = Int64(configuration.maximumMessageBytes) * 4 + 4096
        let ingest = try Socket(context: context, type: .pull)
        try ingest.setOption(.linger, 0)
        try ingest.setOption(.receiveHighWaterMark, configuration.receiveHighWaterMark)
        try ingest.setOption(.maxMessageSize, zmqLimit)
        try ingest.bind(configuration.ingestEndpoint)
        self.ingest = ingest

        let control = try Socket(context: context, type: .router)
        try control.setOption(.linger, configuration.lingerMilliseconds)
        try control.setOption(.receiveHighWaterMark, configuration.receiveHighWaterMark)
        try control.setOption(.sendHighWaterMark, configuration.receiveHighWaterMark)
        try control.setOption(.maxMessageSize, zmqLimit)
        try control.bind(configuration.controlEndpoint)
        self.control = control

        let publish = try Socket(context: context, type: .pub)
        try publish.setOption(.linger, configuration.lingerMilliseconds)
        try publish.setOption(.sendHighWaterMark, configuration.publishHighWaterMark)
        try publish.bind(configuration.publishEndpoint)
        self.publish = publish

        poller.register(ingest, for: .readable)
        poller.register(control, for: .readable)
        boundEndpoints = (try ingest.lastEndpoint, try control.lastEndpoint, try publish.lastEndpoint)
        engine.statusMembers = [
            "version": .string(RowCastVersion.current),
            "endpoints": ["ingest": .string(boundEndpoints.ingest), "control": .string(boundEndpoints.control), "publish": .string(boundEndpoints.publish)],
            "state": ["directory": .string(configuration.stateDirectory), "durability": .string(configuration.durability.rawValue)],
        ]
        logger.debug("sockets bound", metadata: [
            "ingest": "\(boundEndpoints.ingest)", "control": "\(boundEndpoints.control)", "publish": "\(boundEndpoints.publish)",
            "plugins": "\(renderer.pluginCount)",
        ])
    }

    /// The one-line ready message printed on standard output once `start` returned.
    public var readyLine: String {
        "rowcastd ready ingest=\(boundEndpoints.ingest) control=\(boundEndpoints.control) publish=\(boundEndpoints.publish)"
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
        announceReady(engine: engine)
        lastPublication = .now
        try publishAll(restoreReports, on: publish)
        restoreReports = []
        var messages: [IncomingMessage] = []
        var envelopes: [ControlEnvelope] = []
        messages.reserveCapacity(configuration.batchLimit)
        while !signal.isStopRequested {
            messages.removeAll(keepingCapacity: true)
            envelopes = []
            if durable.isCommitting {
                try read(ingest: ingest, control: control, into: &messages, envelopes: &envelopes)
            } else if try poller.poll(timeoutMilliseconds: pollTimeout(commitDue: durable.commitDue)) > 0 {
                try read(ingest: ingest, control: control, into: &messages, envelopes: &envelopes)
            }
            if !messages.isEmpty {
                heldEnvelopes.append(envelopes)
                if durable.submit(messages) {
                    // A reload must see exactly the batches before it: commit and answer them first.
                    try send(try durable.flush(), control: control, publish: publish, engine: engine)
                }
            }
            if durable.hasHeldOutputs {
                try send(try durable.collectCommitted(), control: control, publish: publish, engine: engine)
            }
            if signal.takeReloadRequest() {
                try send(try durable.flush(), control: control, publish: publish, engine: engine)
                _ = try reload(engine: engine, publish: publish)
            }
            try heartbeatIfIdle(engine: engine, publish: publish)
            keepAlive(engine: engine)
        }
        try send(try durable.flush(), control: control, publish: publish, engine: engine)
        announceStopping(engine: engine)
        // A stop that could not be recorded (a full disk) is not a clean one: the exit status
        // says so. Everything acknowledged is still in the write-ahead log.
        if let failure = close() { throw failure }
    }

    /// Closes every socket (queued replies and deltas get up to the linger time to leave),
    /// then records a clean stop in the store and closes it; returns why the clean stop could
    /// not be recorded, if so.
    @discardableResult
    public func close() -> StoreError? {
        ingest?.close()
        control?.close()
        publish?.close()
        ingest = nil
        control = nil
        publish = nil
        let failure = durable?.close()
        durable = nil
        (renderer as? HostedRenderer)?.stopHosts()
        return failure
    }

    /// Reads at most `batchLimit` messages, alternating between the two sockets so neither
    /// starves the other.
    private func read(ingest: Socket, control: Socket, into messages: inout [IncomingMessage], envelopes: inout [ControlEnvelope]) throws {
        var budget = configuration.batchLimit
        while budget > 0 {
            var progressed = false
            if let frames = try ingest.receiveMultipart(dontWait: true) {
                messages.append(IncomingMessage(origin: .ingest, body: frames.first ?? [], frameCount: frames.count))
                progressed = true
                budget -= 1
            }
            if let frames = try control.receiveMultipart(dontWait: true) {
                let envelope = ControlEnvelope(frames: frames)
                messages.append(IncomingMessage(origin: .control(replyTo: envelopes.count), body: envelope.body, frameCount: envelope.bodyFrameCount))
                envelopes.append(envelope)
                progressed = true
                budget -= 1
            }
            if !progressed { break }
        }
    }

    /// Sends the outputs of committed batches, oldest first. For each: publishes first, then
    /// replies (a client that got its ack finds the delta already sent), then answers its
    /// deferred requests (reload).
    private func send(_ outputs: [EngineOutput], control: Socket, publish: Socket, engine: Engine) throws {
        for output in outputs {
            let envelopes = heldEnvelopes.removeFirst()
            try publishAll(output.publications, on: publish)
            for reply in output.replies {
                let sent = try control.send(envelopes[reply.token].replyFrames(reply.body), dontWait: true)
                if !sent { logger.warning("reply dropped: the client is not reading its replies (high-water mark reached)") }
            }
            for deferred in output.deferred {
                try answerReload(deferred, envelope: envelopes[deferred.token], engine: engine, control: control, publish: publish)
            }
        }
    }

    func publishAll(_ publications: [Publication], on publish: Socket) throws {
        guard !publications.isEmpty else { return }
        for publication in publications {
            _ = try publish.send([publication.topic, publication.body], dontWait: true)
        }
        lastPublication = .now
    }

    private func heartbeatIfIdle(engine: Engine, publish: Socket) throws {
        guard ContinuousClock.now - lastPublication >= .milliseconds(configuration.heartbeatMilliseconds) else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let milliseconds = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
        let body: JSONValue = ["event": "heartbeat", "time": .number(Double(milliseconds)), "uptime": .number(engine.uptimeSeconds.rounded())]
        try publishAll([Publication(topic: Topic.heartbeat, body: body.serialized())], on: publish)
    }

    /// Wakes up in time for the next heartbeat and watchdog ping, when held-back ingest is due
    /// to be committed (`commitDue`), and at least every 100 ms to see a stop request.
    private func pollTimeout(commitDue: ContinuousClock.Instant?) -> Int {
        let now = ContinuousClock.now
        var wait = Duration.milliseconds(configuration.heartbeatMilliseconds) - (now - lastPublication)
        if let watchdog { wait = min(wait, watchdog.timeUntilDue(at: now)) }
        if let commitDue { wait = min(wait, commitDue - now) }
        // Rounded up: waking before a held-back commit is due would only poll again.
        let milliseconds = Int(wait.components.seconds * 1000 + (wait.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        return max(0, min(100, milliseconds))
    }
}
