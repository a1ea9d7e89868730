import Foundation
import Logging
import RowCastEngine
import RowCastJSON
import RowCastPostgres
import RowCastSupport
import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// rowcastd with several engine loops (`engine.threads` above 1; docs/OPERATIONS.md, "Engine
/// threads"): each loop is a `Daemon` on a thread of its own (`rowcastd-loop-0`, …) serving
/// the feeds of its partitions, with its own plugin hosts and commit thread, over one shared
/// store; a front thread (`FrontRouter`, on the thread that calls `run`) owns the public
/// ingest and control sockets and hands each message to its feed's loop; a proxy thread
/// (`rowcastd-pub`) joins the loops' deltas onto the public publish socket and carries the
/// subscriptions back to every loop, which answers those of its own feeds.
///
/// With CURVE, the group loads the server key pair and the client keys before any loop starts
/// (`SharedCurve`), and the front serves the ZAP handler of the shared context and names each
/// message's client to its loop, which checks the grants as one rowcastd does.
///
/// A reload is one decision for every loop (`SharedReload`): the configuration, the client
/// keys and the plugin and cell directories are read once, and every loop applies the same.
///
/// Each loop ticks a pass clock of its own in the shared `LoopHealth`, so `/healthz` names a
/// loop that stops passing and the first loop's watchdog pings stop with it.
///
/// Readiness (the ready line, READY=1) comes once every loop has loaded its feeds and the
/// public sockets are bound; a stop stops reading the public sockets, lets every loop answer
/// what it read, forwards the last replies, and only then closes.
///
/// On a cluster node (`cluster.node_name`) the group runs the node's one `ClusterCoordinator`:
/// one heartbeat advertising the public endpoints, one set of leases whose tokens fence the
/// one shared PostgreSQL store. Each loop takes the lease changes of its own partitions from
/// its exchange and forwards the requests of its partitions other nodes own; readiness waits
/// until every loop applied the first round's partitions, and the node leaves the cluster
/// once every loop stopped serving.
final class EngineThreadGroup {
    private let configuration: DaemonConfiguration
    private let logger: Logger
    private let environment: DaemonEnvironment
    private let count: Int
    private let loopSignals: [StopSignal]
    private let outcomes: LockedValue<[Int: Result<Void, any Error>]>
    private let started = DispatchSemaphore(value: 0)
    private var socketLocks: [PIDLockFile] = []
    /// On a cluster node: the node's leases, and whether its thread was started.
    private var cluster: (coordinator: ClusterCoordinator, started: Bool)?

    /// A group of `configuration.engineThreads` loops.
    init(configuration: DaemonConfiguration, logger: Logger, environment: DaemonEnvironment) {
        self.configuration = configuration
        self.logger = logger
        count = configuration.engineThreads
        // Every loop ticks a pass clock of its own: `/healthz` and the watchdog judge each.
        var environment = environment
        let health = environment.health ?? LoopHealth(stall: .milliseconds(configuration.healthStallMilliseconds))
        health.track(loops: count)
        environment.health = health
        self.environment = environment
        loopSignals = (0..<count).map { _ in StopSignal() }
        outcomes = LockedValue([:])
    }

    /// Starts the loops and the front, announces readiness, and serves until `signal` asks for
    /// a stop (or a loop fails); then drains and closes. Throws `DaemonStartError` when it could
    /// not start, and what stopped a loop otherwise.
    func run(until signal: StopSignal) throws {
        let context = try Context()
        let store: SharedFeedStore
        do {
            store = try openStore()
        } catch {
            throw DaemonStartError(underlying: error)
        }
        let curve: (shared: SharedCurve, zap: ZAPHandler)?
        do {
            curve = try startCurve(context: context)
        } catch {
            // No loop started to close it: record the clean stop of a start that served nothing.
            store.underlying.close()
            throw DaemonStartError(underlying: error)
        }
        // The ZAP handler's socket closes last: the public sockets' handshakes need it.
        defer { curve?.zap.socket?.close() }
        let totals = LoopTotals(loops: count)
        let ledgerOrder = LedgerOrder()
        let owners = FeedOwnerCounts()
        let reload = SharedReload(
            running: configuration, environment: environment, logger: logger, loops: count, curve: curve?.shared)
        for index in 0..<count {
            startLoop(
                EngineLoopSlot(
                    index: index, count: count, context: context, store: store, totals: totals,
                    ledgerOrder: ledgerOrder, owners: owners, reload: reload, curve: curve?.shared,
                    cluster: cluster?.coordinator))
        }
        for _ in 0..<count { started.wait() }
        let sockets: PublicSockets
        do {
            if let failure = outcomes.withLock({ $0.values.compactMap { $0.failure }.first }) { throw failure }
            sockets = try PublicSockets(
                configuration: configuration, context: context, loops: count, file: environment.configurationFile,
                metrics: environment.metrics, curve: curve?.shared, locks: &socketLocks)
        } catch {
            stopLoops()
            for lock in socketLocks { lock.release() }
            leaveCluster(store)
            throw DaemonStartError(underlying: error)
        }
        let front: FrontRouter
        do {
            front = try FrontRouter(
                configuration: configuration, context: context, loops: count, ingest: sockets.ingest,
                control: sockets.control, endpoints: sockets.endpointsJSON, metrics: environment.metrics,
                logger: logger, reload: reload, curve: curve?.shared, zap: curve?.zap)
        } catch {
            stopLoops()
            sockets.close(proxyEnded: nil)
            for lock in socketLocks { lock.release() }
            leaveCluster(store)
            throw DaemonStartError(underlying: error)
        }
        let proxyEnded = sockets.startProxy(logger: logger)
        joinCluster(sockets, curve: curve?.shared, until: signal)
        announceReady(sockets)
        do {
            try serve(front: front, sockets: sockets, reload: reload, until: signal)
        } catch {
            // The front failed: nothing reads the public sockets any more. Close them and stop
            // the loops before the ZAP handler closes (deferred above), so no connection is
            // ever served without its CURVE check.
            logger.error("rowcastd front failed; stopping", metadata: ["error": "\(error)"])
            stopLoops()
            front.close()
            sockets.close(proxyEnded: proxyEnded)
            for lock in socketLocks { lock.release() }
            socketLocks = []
            leaveCluster(store)
            throw error
        }
        _ = environment.notifier.send(
            NotifyMessage.stopping.adding(.status("stopping: sending the last deltas and replies")))
        logger.info("rowcastd stopping: every engine loop answered what it read, the sockets close")
        front.close()
        sockets.close(proxyEnded: proxyEnded)
        for lock in socketLocks { lock.release() }
        socketLocks = []
        leaveCluster(store)
        if let failure = failedLoop() { throw failure }
        if let failure = store.closeFailure { throw failure }
    }

    /// Runs the front until `signal` asks for a stop (or a loop fails) and every loop ended
    /// having answered what it read, then passes their last replies on. A reload `signal` asks
    /// for is counted in `reload` before every loop is asked to apply it.
    private func serve(
        front: FrontRouter, sockets: PublicSockets, reload: SharedReload, until signal: StopSignal
    ) throws {
        var stopping = false
        var loopsStopping = false
        while true {
            if !stopping, signal.isStopRequested || failedLoop() != nil {
                stopping = true
                environment.health?.enter(.draining)
            }
            // The loops stop once the front has handed over everything it read (a message held
            // for a full queue first goes on), so together they take a prefix of each connection.
            if stopping, !loopsStopping, !front.isHolding || failedLoop() != nil {
                loopsStopping = true
                for loopSignal in loopSignals { loopSignal.requestStop() }
            }
            if signal.takeReloadRequest() {
                reload.request()
                for loopSignal in loopSignals { loopSignal.requestReload() }
            }
            let ended = outcomes.withLock { $0.count } == count + count
            if loopsStopping, ended {
                try front.drainReplies()
                break
            }
            // The loops tick `/healthz` (the front does not: its passes say nothing of theirs).
            try front.pass(timeoutMilliseconds: 100, reading: !stopping)
            sockets.countSubscribers()
        }
    }

    /// Starts loop `slot.index` on its thread; its start's outcome is recorded under the key
    /// `index`, its run's under `count + index`.
    private func startLoop(_ slot: EngineLoopSlot) {
        var environment = self.environment
        if slot.index > 0 {
            // The first loop speaks to systemd for all of them: WATCHDOG=1 while every loop
            // passes, STATUS= with every loop's counts, RELOADING=1.
            environment.notifier = .disabled
            environment.watchdog = nil
        }
        environment.announceReady = { _ in }
        let loopEnvironment = environment
        let configuration = self.configuration
        let logger = self.logger
        let signal = loopSignals[slot.index]
        let outcomes = self.outcomes
        let started = self.started
        let count = self.count
        NamedThread.start(EngineLoopSlot.threadName(of: slot.index)) {
            let daemon: Daemon
            do {
                daemon = try Daemon(
                    configuration: configuration, logger: logger, environment: loopEnvironment, slot: slot)
            } catch {
                outcomes.withLock { $0[slot.index] = .failure(error) }
                outcomes.withLock { $0[count + slot.index] = .success(()) }
                started.signal()
                return
            }
            do {
                try daemon.start()
            } catch {
                daemon.close()
                outcomes.withLock { $0[slot.index] = .failure(error) }
                outcomes.withLock { $0[count + slot.index] = .success(()) }
                started.signal()
                return
            }
            outcomes.withLock { $0[slot.index] = .success(()) }
            started.signal()
            let result = Result { try daemon.run(until: signal) }
            outcomes.withLock { $0[count + slot.index] = result }
        }
    }

    /// With `curve: true`: checks that libzmq has CURVE, loads (or generates) the server key pair
    /// and reads the client keys, once for every loop, and binds the ZAP handler the front
    /// serves, before any socket binds; nil with CURVE off.
    private func startCurve(context: Context) throws -> (shared: SharedCurve, zap: ZAPHandler)? {
        guard configuration.curve else { return nil }
        let keyPair = try Daemon.loadServerKeyPair(configuration)
        let keyring = Daemon.loadKeyring(configuration.curveClientsDirectory, logger: logger)
        // A cluster node admits the others by the server key they share (docs/SECURITY.md,
        // "Cluster nodes").
        let zap = try ZAPHandler(
            context: context, keyring: keyring, nodeKey: configuration.nodeName.isEmpty ? nil : keyPair.publicKey,
            logger: logger)
        Daemon.logCurveOn(keyPair: keyPair, keyring: keyring, configuration: configuration, logger: logger)
        return (SharedCurve(keyPair: keyPair, keyring: keyring), zap)
    }

    /// The store the loops share; on a cluster node, the PostgreSQL store fenced by the node's
    /// lease tokens, with the coordinator that holds them (`cluster`), which keeps a share of
    /// the store until it left the cluster (`leaveCluster`).
    private func openStore() throws -> SharedFeedStore {
        guard !configuration.nodeName.isEmpty,
            case .postgresql(let url) = try StoreLocation(parsing: configuration.store)
        else {
            return SharedFeedStore(try configuration.openStore(logger: logger), users: count)
        }
        let tokens = LeaseTokens(node: configuration.nodeName)
        let store = try PostgreSQLFeedStore(
            url: url, node: configuration.nodeName, lease: .milliseconds(configuration.leaseMilliseconds),
            logger: logger)
        store.fence = tokens
        // What it advertises and which plugins it runs are known once the public sockets are
        // bound and the first loop loaded its plugins (`joinCluster`).
        let coordinator = ClusterCoordinator(
            node: configuration.nodeName, url: url, lease: .milliseconds(configuration.leaseMilliseconds),
            endpoints: NodeEndpoints(ingest: "", control: "", publish: ""), plugins: "", tokens: tokens,
            loops: count, logger: logger)
        cluster = (coordinator, false)
        return SharedFeedStore(store, users: count + 1)
    }

    /// On a cluster node: advertises the public endpoints, runs the first round of leases, and
    /// waits until every loop applied its partitions of it (or one failed, or a stop came), so
    /// READY=1 means this node serves them, as with one loop.
    private func joinCluster(_ sockets: PublicSockets, curve: SharedCurve?, until signal: StopSignal) {
        guard let coordinator = cluster?.coordinator else { return }
        var endpoints = NodeEndpoints(bound: sockets.bound, advertising: configuration.advertiseHost)
        endpoints.serverKey = curve?.keyPair.publicKey
        coordinator.endpoints = endpoints
        coordinator.start()
        cluster?.started = true
        while !coordinator.isSettled, failedLoop() == nil, !signal.isStopRequested { usleep(5_000) }
        logger.info(
            "joined the cluster",
            metadata: [
                "node": "\(configuration.nodeName)", "partitions": "\(coordinator.tokens.held.count)",
                "nodes": "\(coordinator.exchange.view.nodes.count)", "control": "\(endpoints.control)",
                "engineThreads": "\(count)",
            ])
    }

    /// On a cluster node, once every loop stopped serving: hands every lease back so the other
    /// nodes take the partitions over at their next round, then closes the group's share of the
    /// store. Does nothing elsewhere, or a second time.
    private func leaveCluster(_ store: SharedFeedStore) {
        guard let cluster else { return }
        self.cluster = nil
        if cluster.started { cluster.coordinator.stop(leaving: true) }
        store.close()
    }

    /// Asks every loop to stop and waits until each has ended (a start that failed).
    private func stopLoops() {
        for loopSignal in loopSignals { loopSignal.requestStop() }
        while outcomes.withLock({ $0.count }) < count + count { usleep(10_000) }
    }

    /// The error a loop's run ended with, if one did.
    private func failedLoop() -> (any Error)? {
        let count = self.count
        return outcomes.withLock { outcomes in
            (count..<(count + count)).compactMap { outcomes[$0]?.failure }.first
        }
    }

    private func announceReady(_ sockets: PublicSockets) {
        environment.health?.enter(.running)
        environment.announceReady(sockets.readyLine + (environment.httpAddress.map { " http=\($0)" } ?? ""))
        _ = environment.notifier.send(NotifyMessage.ready.adding(.mainPID(getpid())))
        logger.info(
            "rowcastd ready",
            metadata: [
                "ingest": "\(sockets.bound.ingest)", "control": "\(sockets.bound.control)",
                "publish": "\(sockets.bound.publish)", "engineThreads": "\(count)",
                "config": "\(environment.configurationFile ?? "-")", "http": "\(environment.httpAddress ?? "-")",
            ])
    }
}

extension Result {
    /// The error, when it is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
