import Foundation
import Logging
import RowCastEngine
import RowCastPostgres
import RowCastSupport
import RowCastWire

/// A cluster node's leases, kept on a thread of its own (`rowcast-cluster`) so the loop never
/// waits on them (docs/OPERATIONS.md, "Cluster").
///
/// Every third of a lease it writes the node's heartbeat, renews the leases it holds (a lease
/// another node took meanwhile is lost: the loop stops serving it at once, and the store's
/// fencing check refuses any commit still on its way), reads which nodes are live, and takes
/// the free or expired leases of the partitions `PartitionAssignment` gives this node. A
/// partition it holds that another live node should own now is handed to the loop to stop
/// serving; its lease is released once the loop has, so the other node takes it at its next
/// round. When the store cannot be reached for a whole lease, the node stops serving every
/// partition: their leases may have gone to other nodes by then.
///
/// Each renewal moves `deadline` on (a lease from the round's start, less a margin); the loops
/// serve nothing once it passed (a node paused past its lease), until the next round renews or
/// finds the leases lost.
///
/// Times of leases are the store server's (`clock_timestamp()`), so nodes' clocks need not
/// agree; only the lease's length, measured here, must be roughly right.
///
/// A node with several engine loops (`engine.threads`) runs one coordinator: one heartbeat,
/// one set of leases and tokens. Each loop has an exchange of its own (`exchanges`), which is
/// posted the changes of that loop's partitions (`p % loops`) only, and a lease is released
/// once the loop that served it handed it back.
///
/// `@unchecked Sendable`: its state is used by its own thread only, after `start`; `stop`
/// only sets a flag under `condition`.
final class ClusterCoordinator: @unchecked Sendable {
    /// This node's name.
    let node: String
    /// How long a lease lasts without renewal.
    let lease: Duration
    /// The store's fencing tokens, shared with the store's commits.
    let tokens: LeaseTokens
    /// Until when the leases last renewed surely hold, by this node's monotonic clock: every
    /// loop serves its partitions only before it.
    let deadline = LeaseDeadline()
    /// One per engine loop, shared with it: loop `i` is posted the changes of the partitions
    /// `p % exchanges.count == i`.
    let exchanges: [ClusterExchange]
    private let url: String
    /// What the heartbeat advertises; set before `start` when the endpoints are bound later
    /// (the public sockets of several engine loops).
    var endpoints: NodeEndpoints
    private let logger: Logger
    private let condition = NSCondition()
    private var stopping = false
    private var finished = false
    private var table: PartitionLeaseTable?
    private var plugins: String
    private var lastRenewal: ContinuousClock.Instant?
    private var lastFailureLog: ContinuousClock.Instant?
    private var reportedMismatches: [String] = []
    /// Lease events since the start, posted with each view.
    private var counts = ClusterView.LeaseCounts()

    /// A coordinator for `node`, whose leases last `lease`, serving `loops` engine loops.
    init(
        node: String, url: String, lease: Duration, endpoints: NodeEndpoints, plugins: String, tokens: LeaseTokens,
        loops: Int = 1, logger: Logger
    ) {
        self.node = node
        self.url = url
        self.lease = lease
        self.endpoints = endpoints
        self.plugins = plugins
        self.tokens = tokens
        self.logger = logger
        exchanges = (0..<max(loops, 1)).map { _ in ClusterExchange(node: node) }
    }

    /// The exchange of the first (with one engine loop, the only) loop.
    var exchange: ClusterExchange { exchanges[0] }

    /// Whether every loop has applied what was posted to it (readiness waits for it).
    var isSettled: Bool { exchanges.allSatisfy(\.isSettled) }

    /// How often a round runs: a third of a lease, so two rounds can fail before it runs out.
    var interval: Duration { lease / 3 }

    /// Runs the first round here (so the node starts with its partitions when the store is
    /// reachable), then the rest on the coordinator's thread.
    func start() {
        round()
        NamedThread.start("rowcast-cluster") { [self] in
            condition.lock()
            while !stopping {
                condition.unlock()
                round()
                condition.lock()
                if !stopping { _ = condition.wait(until: Date(timeIntervalSinceNow: interval.seconds)) }
            }
            finished = true
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The plugins this node runs changed (a reload): the next heartbeat says so.
    func pluginsChanged(_ description: String) {
        condition.lock()
        plugins = description
        condition.unlock()
    }

    /// Stops the thread; with `leaving`, hands every lease back and removes the node, so the
    /// others take its partitions over at their next round instead of after a lease. Call once
    /// the loop stopped serving (its last commits are done).
    func stop(leaving: Bool) {
        condition.lock()
        stopping = true
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: max(interval.seconds, 1) + 5)
        while !finished, condition.wait(until: deadline) {}
        let stopped = finished
        condition.unlock()
        guard leaving else { return }
        guard stopped else {
            // Its thread still waits on the store: its connection is not this thread's to use.
            logger.warning(
                "could not leave the cluster cleanly (the store does not answer); other nodes take its partitions when its leases run out"
            )
            return
        }
        do {
            let table = try connectedTable()
            try table.leave(node: node)
            tokens.remove(Set(tokens.held.keys))
            logger.info("left the cluster; its partitions go to the other nodes", metadata: ["node": "\(node)"])
        } catch {
            logger.warning(
                "could not leave the cluster cleanly; other nodes take its partitions when its leases run out",
                metadata: ["error": "\(error.message)"])
        }
        table?.close()
        table = nil
    }

    /// One round with the store (see the type's description).
    func round() {
        let started = ContinuousClock.now
        // Taken before the round's first query: the store's time of the renewal is later.
        let deadlineStart = LeaseDeadline.now()
        // Leases found lost or taken are posted to the loops even when a later step of the
        // round fails: a lease taken but never posted would be held with its partition served
        // nowhere. Once the leases were renewed, the deadline moves on too.
        var lost: Set<Partition> = []
        var taken: Set<Partition> = []
        var renewedLeases = false
        condition.lock()
        let plugins = self.plugins
        condition.unlock()
        do {
            let table = try connectedTable()
            try table.heartbeat(node: node, endpoints: endpoints.json, plugins: plugins)
            let held = tokens.held
            let renewed = try table.renew(held, node: node, lease: lease)
            lost = Set(held.keys).subtracting(renewed.keys)
            if !lost.isEmpty {
                tokens.remove(lost)
                counts.lost += lost.count
                logger.warning(
                    "leases lost to other nodes; their partitions are no longer served here",
                    metadata: ["partitions": "\(lost.sorted().map(\.index))"])
            }
            lastRenewal = started
            renewedLeases = true
            let released = exchanges.reduce(into: Set<Partition>()) { $0.formUnion($1.takeReleased()) }
                .filter { renewed[$0] != nil }
            if !released.isEmpty {
                try table.release(released, node: node)
                tokens.remove(released)
                counts.released += released.count
            }
            let nodes = try table.liveNodes(within: lease)
            let assignment = PartitionAssignment(nodes: nodes.map(\.name) + [node])
            let wanted = assignment.partitions(of: node)
            let holding = Set(renewed.keys).subtracting(released)
            var takenOver: Set<Partition> = []
            let acquired = try table.acquire(
                wanted.subtracting(holding), node: node, lease: lease, takenOver: &takenOver)
            for (partition, token) in acquired { tokens.set(partition, token: token) }
            taken = Set(acquired.keys)
            counts.acquired += acquired.count
            counts.takenOver += takenOver.count
            var view = ClusterView(node: node)
            view.nodes = nodes
            view.readAt = .now
            view.leases = try table.leases()
            view.held = tokens.held
            view.lastRenewal = lastRenewal
            view.counts = counts
            view.pluginMismatches = nodes.filter { $0.name != node && $0.plugins != plugins }.map(\.name)
            reportMismatches(view.pluginMismatches)
            post(acquired: taken, lost: lost, unwanted: holding.subtracting(wanted), view: view)
            // After the post: a loop that sees this deadline takes the round's changes first.
            deadline.renewed(at: deadlineStart, lease: lease)
        } catch {
            counts.failedRounds += 1
            table?.close()
            table = nil
            var view = exchange.view
            view.storeFailure = error.message
            if let lastRenewal, ContinuousClock.now - lastRenewal >= lease, !tokens.held.isEmpty {
                // Other nodes may hold these leases by now: serving them would only earn
                // fencing errors. They are taken again once the store answers.
                let expired = Set(tokens.held.keys)
                tokens.remove(expired)
                lost.formUnion(expired)
                counts.lost += expired.count
                self.lastRenewal = nil
                logger.error(
                    "the store was unreachable for a whole lease; this node stops serving its partitions until it answers",
                    metadata: ["partitions": "\(expired.count)", "error": "\(error.message)"])
            } else if lastFailureLog.map({ ContinuousClock.now - $0 >= .seconds(10) }) ?? true {
                lastFailureLog = .now
                logger.warning(
                    "cannot reach the store to renew this node's leases", metadata: ["error": "\(error.message)"])
            }
            view.held = tokens.held
            view.counts = counts
            post(acquired: taken.intersection(tokens.held.keys), lost: lost, unwanted: [], view: view)
            if renewedLeases, self.lastRenewal != nil { deadline.renewed(at: deadlineStart, lease: lease) }
        }
    }

    /// Posts to each loop's exchange the changes of its partitions, and the view to all.
    private func post(acquired: Set<Partition>, lost: Set<Partition>, unwanted: Set<Partition>, view: ClusterView) {
        let count = exchanges.count
        for (index, exchange) in exchanges.enumerated() {
            let mine = { (partition: Partition) in partition.index % count == index }
            exchange.post(
                acquired: acquired.filter(mine), lost: lost.filter(mine), unwanted: unwanted.filter(mine), view: view)
        }
    }

    private func connectedTable() throws(StoreError) -> PartitionLeaseTable {
        if let table { return table }
        let table = try PartitionLeaseTable(url: url, logger: logger)
        self.table = table
        return table
    }

    private func reportMismatches(_ mismatches: [String]) {
        guard mismatches != reportedMismatches else { return }
        reportedMismatches = mismatches
        guard !mismatches.isEmpty else { return }
        logger.error(
            "other nodes run other plugin builds: a partition that moves between them renders its rows again, and its items may render differently",
            metadata: ["nodes": "\(mismatches)"])
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
