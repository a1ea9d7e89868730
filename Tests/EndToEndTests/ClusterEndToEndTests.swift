import Foundation
import RowCastClient
import RowCastDaemon
import RowCastJSON
import RowCastPluginHosting
import RowCastTesting
import RowCastWire
import Testing

/// Three rowcastd nodes sharing one real PostgreSQL (`--store … --node-name`): a feed's
/// partition is owned by one live node, any node answers, and a dead or paused owner's
/// partitions move to the others without losing or doubling anything acked.
@Suite(.serialized, .enabled(if: PostgreSQLTestServer.testsEnabled))
struct ClusterEndToEndTests {
    /// How long a node's lease lasts in these tests.
    static let leaseMilliseconds = 1500
    /// How long a test waits for the cluster to settle or a partition to move.
    static let patience: TimeInterval = SanitizerRuntime.isActive ? 90 : 30

    /// Three nodes on one database, each with its own state directory and free ports.
    final class Cluster {
        let url: String
        let plugins: TemporaryDirectory
        private(set) var nodes: [String: DaemonProcess] = [:]
        let names = ["n1", "n2", "n3"]
        /// More options of each node, by name (`--engine-threads`, say).
        let extraArguments: [String: [String]]

        init(url: String, count: Int = 3, extraArguments: [String: [String]] = [:]) throws {
            self.url = url
            self.extraArguments = extraArguments
            plugins = try DaemonProcess.pluginDirectory()
            for name in names.prefix(count) { try start(name) }
        }

        func start(_ name: String) throws {
            nodes[name] = try DaemonProcess(
                pluginDirectory: plugins,
                extraArguments: [
                    "--store", url, "--node-name", name, "--lease-ms", "\(ClusterEndToEndTests.leaseMilliseconds)",
                ] + (extraArguments[name] ?? []),
                timeout: 60)
        }

        func node(_ name: String) -> DaemonProcess { nodes[name]! }

        func kill(_ name: String) {
            nodes[name]?.crash()
            nodes[name] = nil
        }

        func stopAll() {
            for node in nodes.values {
                node.signal(SIGCONT)
                node.stop()
            }
            nodes = [:]
        }

        /// The node that owns `feed`'s partition, as `through`'s status shows it.
        func owner(of feed: String, through name: String) throws -> String? {
            let status = try RawPeer(node(name)).request(["op": "status"])
            let partition = Double(Partition(feed: feed).index)
            for node in status["cluster"]?["nodes"]?.arrayValue ?? [] {
                if (node["partitions"]?.arrayValue ?? []).contains(.number(partition)) {
                    return node["name"]?.stringValue
                }
            }
            return nil
        }

        /// Waits until every partition is owned by the node `PartitionAssignment` gives it
        /// among `live`, as each live node's status shows.
        func settle(_ live: [String]) throws {
            let assignment = PartitionAssignment(nodes: live)
            let deadline = Date().addingTimeInterval(ClusterEndToEndTests.patience)
            var last = ""
            while Date() < deadline {
                var settled = true
                for name in live {
                    let status = try RawPeer(node(name)).request(["op": "status"])
                    let cluster = status["cluster"]
                    var owned: [Int: String] = [:]
                    for node in cluster?["nodes"]?.arrayValue ?? [] {
                        for partition in node["partitions"]?.arrayValue ?? [] {
                            owned[Int(partition.numberValue ?? -1)] = node["name"]?.stringValue
                        }
                    }
                    let wrong = Partition.all.filter { owned[$0.index] != assignment.owner(of: $0) }
                    let held = cluster?["held"]?.arrayValue?.count ?? -1
                    if !wrong.isEmpty || held != assignment.partitions(of: name).count {
                        settled = false
                        last = "\(name): \(wrong.count) partitions not with their owner, \(held) held"
                    }
                }
                if settled { return }
                Thread.sleep(forTimeInterval: 0.2)
            }
            throw TestFailure("the cluster did not settle within \(ClusterEndToEndTests.patience) s: \(last)")
        }
    }

    /// A feed whose partition `PartitionAssignment` gives to `owner` among `nodes`.
    /// A feed of n1's with an item ("a") acked by n1, then n1 stopped (SIGSTOP) until the
    /// feed's successor took it over and acked a second item ("b"). The caller sends SIGCONT.
    struct StoppedOwner {
        let feed: String
        /// n1, stopped.
        let paused: DaemonProcess
        /// A connection to n1's control socket, opened before the stop.
        let peer: RawPeer
        /// n1's answer to "a".
        let first: JSONValue
        /// A connection to the successor's control socket.
        let successorPeer: RawPeer
        /// The successor's answer to "b".
        let taken: JSONValue

        init(in cluster: Cluster, prefix: String) throws {
            let live = cluster.names
            try cluster.settle(live)
            feed = ClusterEndToEndTests.feed(ownedBy: "n1", among: live, prefix: prefix)
            let successor = PartitionAssignment(nodes: ["n2", "n3"]).owner(of: Partition(feed: feed))!
            paused = cluster.node("n1")
            peer = try RawPeer(paused)
            first = try peer.request(["op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("a")])
            #expect(first["ok"] == true, "\(first)")

            paused.signal(SIGSTOP)
            do {
                // The successor takes the partition over once n1's lease runs out.
                let deadline = Date().addingTimeInterval(ClusterEndToEndTests.patience)
                while try cluster.owner(of: feed, through: successor) != successor {
                    guard Date() < deadline else { throw TestFailure("\(successor) did not take \(feed) over") }
                    Thread.sleep(forTimeInterval: 0.2)
                }
                successorPeer = try RawPeer(cluster.node(successor))
                taken = try successorPeer.request([
                    "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("b"),
                ])
                #expect(taken["ok"] == true, "\(taken)")
            } catch {
                paused.signal(SIGCONT)
                throw error
            }
        }
    }

    static func feed(ownedBy owner: String, among nodes: [String], prefix: String) -> String {
        let assignment = PartitionAssignment(nodes: nodes)
        return (0..<10_000).lazy.map { "\(prefix)-\($0)" }.first { assignment.owner(of: Partition(feed: $0)) == owner }!
    }

    @Test(
        "acked publishing through one node while the feed's owner is killed: every acked item is in the snapshot once, and a replica through a relay of all nodes follows without a resync",
        .timeLimit(.minutes(4)))
    func ownerKilledUnderAckedLoad() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let cluster = try Cluster(url: url)
        defer { cluster.stopAll() }
        try cluster.settle(cluster.names)
        let feed = Self.feed(ownedBy: "n2", among: cluster.names, prefix: "killed")
        #expect(try cluster.owner(of: feed, through: "n1") == "n2")

        let relay = try RelayProcess(
            upstreamPublish: cluster.node("n1").publish, upstreamControl: cluster.node("n1").control,
            extra: ["--upstream-publish", cluster.node("n2").publish, "--upstream-publish", cluster.node("n3").publish])
        defer { _ = relay.stop() }
        let first = try RawPeer(cluster.node("n1")).request([
            "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("first"),
        ])
        #expect(first["ok"] == true, "\(first)")
        let session = try ReplicaSession(
            feed: feed, controlEndpoint: relay.control, publishEndpoint: relay.publish,
            timeout: .seconds(Int(Self.patience)))
        let loaded = try session.start()
        let epoch = loaded.epoch

        // The load goes through n1, which forwards it to n2, then to n3 once n2 is gone.
        let publisher = try AckedPublisher(
            endpoint: cluster.node("n1").control,
            options: AckedPublisherOptions(
                window: 32, retryTimeout: .milliseconds(500), timeout: .seconds(Int(Self.patience)),
                connectTimeout: .milliseconds(200)))
        var results: [AckedResult] = []
        var sent = 0
        var killedAt: Int?
        let started = Date()
        while sent < 3000, Date().timeIntervalSince(started) < Self.patience {
            try publisher.submit([
                "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("i\(sent)"),
            ])
            sent += 1
            results += publisher.takeResults()
            if sent == 300 {
                cluster.kill("n2")
                killedAt = sent
            }
            while try session.next(timeout: .zero) != nil {}
            // Until 200 upserts sent after the kill are acked: the partition's new owner serves.
            if let killedAt {
                let ackedAfter = PostgreSQLStoreEndToEndTests.ackedIDs(results).filter {
                    (Int($0.dropFirst()) ?? 0) >= killedAt
                }
                if ackedAfter.count >= 200 { break }
            }
        }
        try publisher.flush()
        results += publisher.takeResults()

        let acked = PostgreSQLStoreEndToEndTests.ackedIDs(results)
        #expect(
            acked.count > 300, "\(results.filter { PostgreSQLStoreEndToEndTests.ackedIDs([$0]).isEmpty }.prefix(3))")
        let refused = results.filter { PostgreSQLStoreEndToEndTests.ackedIDs([$0]).isEmpty }
        for result in refused {
            // What is not acked is refused with a clear, retryable code.
            guard case .failure(let error) = result.result else { continue }
            #expect(["partition_unavailable", "forward_timeout", "storage_error"].contains(error.code), "\(error)")
        }
        let successor = PartitionAssignment(nodes: ["n1", "n3"]).owner(of: Partition(feed: feed))!
        #expect(try cluster.owner(of: feed, through: "n1") == successor)
        let snapshot = try RawPeer(cluster.node(successor)).request(["op": "snapshot", "feed": .string(feed)])
        let ids = PostgreSQLStoreEndToEndTests.rowIDs(snapshot)
        #expect(ids.count == Set(ids).count, "an item is in the snapshot twice")
        #expect(Set(acked).isSubset(of: Set(ids)), "\(Set(acked).subtracting(ids).count) acked items missing")
        #expect(snapshot["epoch"]?.stringValue == epoch, "the feed started a new epoch on its new owner")

        try RelayEndToEndTests.follow(session, to: Int(snapshot["seq"]?.numberValue ?? 0), seconds: Self.patience)
        // A gap (a delta committed by n2 but not published before the kill) is filled from the
        // new owner's history; the replica never takes a new snapshot.
        #expect(session.resyncCount == session.resumeCount, "the replica had to take a new snapshot")
        #expect(session.replica?.epoch == epoch)
        let state = try FeedReplica(
            snapshot: try ControlClient(endpoint: cluster.node("n1").control, timeout: .seconds(10)).snapshot(
                feed: feed)
        ).snapshotJSON
        #expect(session.replica?.snapshotJSON == state)
    }

    @Test(
        "a node stopped past its lease cannot commit once it continues: its request is refused or forwarded, and only what was acked is stored",
        .timeLimit(.minutes(3)))
    func pausedOwnerIsFenced() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let cluster = try Cluster(url: url)
        defer { cluster.stopAll() }
        let stopped = try StoppedOwner(in: cluster, prefix: "fenced")
        defer { stopped.paused.signal(SIGCONT) }
        let (feed, paused, peer, other, taken) = (
            stopped.feed, stopped.paused, stopped.peer, stopped.successorPeer, stopped.taken
        )
        // Sent while n1 is stopped: it reads it the moment it continues, before or after it
        // learns that its lease is gone.
        _ = try peer.dealer.send([
            [],
            (["op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("c"), "req": "late"]
                as JSONValue).serialized(),
        ])
        paused.signal(SIGCONT)
        guard let frames = try peer.dealer.receiveMultipart() else { throw TestFailure("n1 did not answer") }
        let late = try JSONParser.parse(frames.last ?? [])
        let code = late["error"]?["code"]?.stringValue
        #expect(
            late["ok"] == true || ["storage_error", "partition_unavailable"].contains(code ?? ""),
            "\(late)\n\(paused.log)")

        let snapshot = try other.request(["op": "snapshot", "feed": .string(feed)])
        let ids = Set(PostgreSQLStoreEndToEndTests.rowIDs(snapshot))
        #expect(ids.isSuperset(of: ["a", "b"]))
        // "c" is stored exactly when n1 said so, and then through the successor, at its next seq.
        #expect(ids.contains("c") == (late["ok"] == true), "\(late) \(snapshot)")
        if late["ok"] == true {
            #expect(late["seq"] == .number((taken["seq"]?.numberValue ?? 0) + 1), "\(late) \(taken)")
        }
        // n1 answers from the partition's owner once its round ran (the successor's, or its
        // own again once the successor handed it back: n1 is live again).
        let settled = Date().addingTimeInterval(Self.patience)
        while try !Set(PostgreSQLStoreEndToEndTests.rowIDs(peer.request(["op": "snapshot", "feed": .string(feed)])))
            .isSuperset(of: ["a", "b"])
        {
            guard Date() < settled else {
                throw TestFailure("n1 still does not answer \(feed) from its owner\n\(paused.log)")
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    @Test(
        "a node woken past its lease serves no stale read: its snapshot and since wait for the owner or are refused",
        .timeLimit(.minutes(3)))
    func pausedOwnerServesNoStaleRead() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let cluster = try Cluster(url: url)
        defer { cluster.stopAll() }
        let stopped = try StoppedOwner(in: cluster, prefix: "stale")
        defer { stopped.paused.signal(SIGCONT) }
        let (feed, paused, peer, first) = (stopped.feed, stopped.paused, stopped.peer, stopped.first)

        // Sent while n1 is stopped, so it reads them the moment it continues, before its
        // coordinator's next round; then again until both come from the partition's owner.
        let reads: [JSONValue] = [
            ["op": "snapshot", "feed": .string(feed), "req": "snapshot"],
            ["op": "since", "feed": .string(feed), "epoch": first["epoch"]!, "seq": first["seq"]!, "req": "since"],
        ]
        func send() throws {
            for read in reads { _ = try peer.dealer.send([[], read.serialized()]) }
        }
        try send()
        paused.signal(SIGCONT)
        let settled = Date().addingTimeInterval(Self.patience)
        var fresh: Set<String> = []
        while fresh.count < reads.count {
            guard Date() < settled else { throw TestFailure("n1 did not answer from \(feed)'s owner\n\(paused.log)") }
            for _ in reads {
                guard let frames = try peer.dealer.receiveMultipart() else { throw TestFailure("n1 did not answer") }
                let answer = try JSONParser.parse(frames.last ?? [])
                let req = answer["req"]?.stringValue ?? ""
                if answer["ok"] == true {
                    // The state n1 held before its pause has "a" only: never that.
                    let current =
                        req == "snapshot"
                        ? PostgreSQLStoreEndToEndTests.rowIDs(answer).contains("b")
                        : (answer["deltas"]?.arrayValue ?? []).count == 1
                    #expect(current, "a stale \(req) from n1: \(answer)")
                    if current { fresh.insert(req) }
                } else {
                    #expect(answer["error"]?["code"]?.stringValue == "partition_unavailable", "\(answer)")
                }
            }
            if fresh.count < reads.count {
                Thread.sleep(forTimeInterval: 0.2)
                try send()
            }
        }
    }

    @Test(
        "after a failover, a retry sent to another node gets the first answer, and since is answered from history",
        .timeLimit(.minutes(3)))
    func retryAndSinceAcrossFailover() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let cluster = try Cluster(url: url)
        defer { cluster.stopAll() }
        try cluster.settle(cluster.names)
        let feed = Self.feed(ownedBy: "n3", among: cluster.names, prefix: "retry")
        let entry = try RawPeer(cluster.node("n1"))
        var last = JSONValue.null
        for index in 0..<10 {
            last = try entry.request([
                "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("r\(index)"),
            ])
            #expect(last["ok"] == true, "\(last)")
        }
        let request: JSONValue = [
            "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("retried", price: 1),
            "client": "retrier", "req": 7,
        ]
        let answered = try entry.request(request)
        #expect(answered["ok"] == true, "\(answered)")

        cluster.kill("n3")
        let deadline = Date().addingTimeInterval(Self.patience)
        while try cluster.owner(of: feed, through: "n2") == nil
            || (try cluster.owner(of: feed, through: "n2")) == "n3"
        {
            guard Date() < deadline else { throw TestFailure("nobody took \(feed) over from n3") }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let again = try RawPeer(cluster.node("n2")).request(request)
        #expect(again.serialized() == answered.serialized(), "\(again) vs \(answered)")

        let since = try RawPeer(cluster.node("n2")).request([
            "op": "since", "feed": .string(feed), "epoch": last["epoch"]!,
            "seq": .number((last["seq"]?.numberValue ?? 0) - 4),
        ])
        #expect(since["covered"] == true, "\(since)")
        #expect((since["deltas"]?.arrayValue ?? []).count == 5, "\(since)")

        // n1 forwarded every write; the metrics say so, with its leases and the store's round trips.
        let deadline2 = Date().addingTimeInterval(Self.patience)
        var metrics = ""
        let names = [
            "rowcast_cluster_partitions_held ", "rowcast_cluster_nodes 2.0\n", "rowcast_store_round_trips_total ",
            "rowcast_cluster_forwarded_total{socket=\"control\"} ",
            "rowcast_cluster_lease_events_total{event=\"acquired\"} ",
            // n3 was killed: n1 took some of its partitions over.
            "rowcast_cluster_lease_events_total{event=\"taken_over\"} ",
        ]
        func takeovers() -> Double {
            metrics.split(separator: "\n").first { $0.hasPrefix(names.last!) }
                .flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        }
        // The gauges refresh on the node's own rounds: wait (bounded) until every one is there.
        while Date() < deadline2 {
            metrics = try HTTPGet.get(cluster.node("n1").http, "/metrics").body
            if names.allSatisfy(metrics.contains) && takeovers() > 0 { break }
            Thread.sleep(forTimeInterval: 0.3)
        }
        for name in names {
            #expect(metrics.contains(name), "\(name) missing from /metrics:\n\(metrics)")
        }
        #expect(takeovers() > 0, "no takeover counted:\n\(metrics)")
    }

    @Test(
        "PostgreSQL restarted under acked load through a node: clear errors while it is down, the nodes recover by themselves, nothing acked is lost",
        .timeLimit(.minutes(4)))
    func serverRestartUnderLoad() throws {
        let server = try PostgreSQLTestServer()
        defer { server.stop() }
        let cluster = try Cluster(url: try server.makeDatabase())
        defer { cluster.stopAll() }
        let live = cluster.names
        try cluster.settle(live)
        // One feed each node owns, all written through n1.
        let feeds = live.map { Self.feed(ownedBy: $0, among: live, prefix: "restart") }
        let publisher = try AckedPublisher(
            endpoint: cluster.node("n1").control,
            // Its timeout spans the server's restart, during which no results are read.
            options: AckedPublisherOptions(
                window: 16, retryTimeout: .milliseconds(500), timeout: .seconds(60),
                connectTimeout: .milliseconds(200)))
        var results: [AckedResult] = []
        var sent = 0
        func publish(for seconds: TimeInterval) throws {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                try publisher.submit([
                    "op": "upsert", "feed": .string(feeds[sent % feeds.count]),
                    "item": DaemonEndToEndTests.product("p\(sent)"),
                ])
                sent += 1
                results += publisher.takeResults()
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        try publish(for: 1)
        try server.stopServer(mode: "fast")
        // Down for longer than a lease: the nodes give their partitions up meanwhile.
        try publish(for: Double(Self.leaseMilliseconds) / 1000 * 2)
        try server.start()
        // The nodes take their leases again and load their feeds by themselves.
        let recovered = Date().addingTimeInterval(Self.patience)
        var ackedAfterRestart = 0
        while ackedAfterRestart < 50 {
            guard Date() < recovered else {
                throw TestFailure("no acked writes after the restart\n\(cluster.node("n1").log)")
            }
            let before = sent
            try publish(for: 0.5)
            try publisher.flush()
            let latest = publisher.takeResults()
            results += latest
            ackedAfterRestart +=
                PostgreSQLStoreEndToEndTests.ackedIDs(latest).filter {
                    (Int($0.dropFirst()) ?? 0) >= before
                }.count
        }
        try publisher.flush()
        results += publisher.takeResults()

        let refusals = results.compactMap { result -> String? in
            guard case .failure(let error) = result.result else { return nil }
            return error.code
        }
        #expect(!refusals.isEmpty, "no request was refused while PostgreSQL was down")
        // Commits while the server is down fail with storage_error; once a node has not
        // renewed its leases for most of a lease, it refuses at once (partition_unavailable).
        #expect(refusals.contains("storage_error"), "\(Set(refusals))")
        #expect(
            Set(refusals).isSubset(of: ["storage_error", "partition_unavailable", "forward_timeout"]),
            "\(Set(refusals))")
        let acked = Set(PostgreSQLStoreEndToEndTests.ackedIDs(results))
        var stored: [String] = []
        for feed in feeds {
            stored += PostgreSQLStoreEndToEndTests.rowIDs(
                try RawPeer(cluster.node("n1")).request(["op": "snapshot", "feed": .string(feed)]))
        }
        #expect(stored.count == Set(stored).count, "an item is stored twice")
        #expect(acked.isSubset(of: Set(stored)), "\(acked.subtracting(stored).count) acked items missing")
    }
}
