import Foundation
import RowCastClient
import RowCastDaemon
import RowCastJSON
import RowCastTesting
import RowCastWire
import Testing

/// Cluster nodes with several engine threads (`--node-name` with `--engine-threads 2` and 3) on
/// one real PostgreSQL: each node holds its leases once, its loops serve their partitions'
/// share, a killed owner's partitions move to the loops of the others without losing or
/// doubling anything acked, and any node forwards a request to the loop of its feed anywhere.
@Suite(.serialized, .enabled(if: PostgreSQLTestServer.testsEnabled))
struct ClusterEngineThreadsEndToEndTests {
    typealias Cluster = ClusterEndToEndTests.Cluster

    /// Engine threads of each node: two counts, so a feed's loop differs from node to node.
    static let threads = ["n1": 2, "n2": 3, "n3": 2]

    /// A cluster of the three nodes, each with its `threads`.
    static func cluster(url: String) throws -> Cluster {
        try Cluster(url: url, extraArguments: threads.mapValues { ["--engine-threads", "\($0)"] })
    }

    /// A feed whose partition `owner` gets among `nodes` and whose index leaves `residue`
    /// divided by `modulus` (so it is served by that loop of each node).
    static func feed(
        ownedBy owner: String, among nodes: [String], residue: Int, modulus: Int, prefix: String
    )
        -> String
    {
        let assignment = PartitionAssignment(nodes: nodes)
        return (0..<100_000).lazy.map { "\(prefix)-\($0)" }.first {
            let partition = Partition(feed: $0)
            return assignment.owner(of: partition) == owner && partition.index % modulus == residue
        }!
    }

    @Test(
        "acked publishing to feeds of every loop through one node while an owner is killed: every acked item is in its snapshot once, and seq is gapless in the same epoch",
        .timeLimit(.minutes(4)))
    func ownerKilledUnderAckedLoad() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let cluster = try Self.cluster(url: url)
        defer { cluster.stopAll() }
        try cluster.settle(cluster.names)
        // Every loop of every node owns one of them; n2's move when it is killed.
        var feeds: [String] = []
        for (node, count) in Self.threads.sorted(by: { $0.key < $1.key }) {
            for loop in 0..<count {
                feeds.append(
                    Self.feed(ownedBy: node, among: cluster.names, residue: loop, modulus: count, prefix: "k\(node)"))
            }
        }
        let killedFeeds = Set(feeds.filter { $0.hasPrefix("kn2") })
        #expect(killedFeeds.count == 3)
        let entry = try RawPeer(cluster.node("n1"))
        var firsts: [String: JSONValue] = [:]
        for feed in feeds {
            let first = try entry.request([
                "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("\(feed)-first"),
            ])
            #expect(first["ok"] == true, "\(first)")
            firsts[feed] = first
        }

        let publisher = try AckedPublisher(
            endpoint: cluster.node("n1").control,
            options: AckedPublisherOptions(
                window: 32, retryTimeout: .milliseconds(500), timeout: .seconds(Int(ClusterEndToEndTests.patience)),
                connectTimeout: .milliseconds(200)))
        var results: [AckedResult] = []
        var sent = 0
        var killedAt: Int?
        let started = Date()
        func ackedAfterKill(_ feed: String) -> Int {
            guard let killedAt else { return 0 }
            return results.filter { result in
                guard case .success(let reply) = result.result, reply["ok"] == true,
                    result.request["feed"]?.stringValue == feed,
                    let id = result.request["item"]?["id"]?.stringValue
                else { return false }
                return (Int(id.split(separator: "-").last ?? "") ?? 0) >= killedAt
            }.count
        }
        while sent < 6000, Date().timeIntervalSince(started) < ClusterEndToEndTests.patience {
            let feed = feeds[sent % feeds.count]
            try publisher.submit([
                "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("\(feed)-\(sent)"),
            ])
            sent += 1
            results += publisher.takeResults()
            if sent == 700 {
                cluster.kill("n2")
                killedAt = sent
            }
            // Until each of n2's feeds has 50 upserts sent after the kill acked by its new owner.
            if killedAt != nil, killedFeeds.allSatisfy({ ackedAfterKill($0) >= 50 }) { break }
        }
        try publisher.flush()
        results += publisher.takeResults()
        for feed in killedFeeds {
            #expect(ackedAfterKill(feed) >= 50, "\(feed): \(ackedAfterKill(feed)) acked after the kill")
        }
        for result in results {
            // What is not acked is refused with a clear, retryable code.
            guard case .failure(let error) = result.result else { continue }
            #expect(["partition_unavailable", "forward_timeout", "storage_error"].contains(error.code), "\(error)")
        }

        let live = ["n1", "n3"]
        for feed in feeds {
            let owner = PartitionAssignment(nodes: live).owner(of: Partition(feed: feed))!
            #expect(try cluster.owner(of: feed, through: "n1") == owner, "\(feed)")
            let snapshot = try entry.request(["op": "snapshot", "feed": .string(feed)])
            let ids = PostgreSQLStoreEndToEndTests.rowIDs(snapshot)
            let acked = results.filter { $0.request["feed"]?.stringValue == feed }
            let ackedIDs = PostgreSQLStoreEndToEndTests.ackedIDs(acked)
            #expect(ids.count == Set(ids).count, "\(feed): an item is in the snapshot twice")
            #expect(
                Set(ackedIDs).isSubset(of: Set(ids)),
                "\(feed): \(Set(ackedIDs).subtracting(ids).count) acked items missing")
            let first = firsts[feed] ?? .null
            #expect(snapshot["epoch"] == first["epoch"], "\(feed) started a new epoch")
            // The history since the first upsert holds every seq up to the snapshot's, once each,
            // through both owners: nothing was skipped or taken twice.
            let since = try entry.request([
                "op": "since", "feed": .string(feed), "epoch": first["epoch"] ?? .null, "seq": first["seq"] ?? .null,
            ])
            #expect(since["covered"] == true, "\(feed): \(since["reason"] ?? .null)")
            #expect(since["seq"] == snapshot["seq"], "\(feed)")
            let firstSeq = Int(first["seq"]?.numberValue ?? 0)
            let lastSeq = Int(snapshot["seq"]?.numberValue ?? 0)
            let deltaSeqs = (since["deltas"]?.arrayValue ?? []).map { Int($0["seq"]?.numberValue ?? 0) }
            #expect(lastSeq > firstSeq, "\(feed)")
            #expect(deltaSeqs == Array((firstSeq + 1)..<(lastSeq + 1)), "\(feed): \(deltaSeqs.prefix(20))")
            let ackedSeqs = acked.compactMap { result -> Int? in
                guard case .success(let reply) = result.result else { return nil }
                return reply["seq"]?.numberValue.map { Int($0) }
            }
            #expect(ackedSeqs.allSatisfy { $0 > firstSeq && $0 <= lastSeq }, "\(feed): an ack outside the history")
        }
    }

    @Test(
        "a request for a feed of any loop of another node is forwarded through every node, control and ingest, status shows the node's cluster once, and a node stopped cleanly hands its leases back",
        .timeLimit(.minutes(3)))
    func forwardingReachesEveryLoop() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let cluster = try Self.cluster(url: url)
        defer { cluster.stopAll() }
        try cluster.settle(cluster.names)
        let assignment = PartitionAssignment(nodes: cluster.names)
        for name in cluster.names {
            let status = try RawPeer(cluster.node(name)).request(["op": "status"])
            #expect(status["engineThreads"] == .number(Double(Self.threads[name]!)), "\(status)")
            #expect(status["cluster"]?["node"] == .string(name))
            #expect(status["cluster"]?["held"]?.arrayValue?.count == assignment.partitions(of: name).count)
            #expect(status["cluster"]?["forwarding"] == 0)
        }
        // Every loop of the entry node (2 or 3) against every loop of the owner: residues mod 6.
        var expected: [(entry: String, feed: String, ids: [String])] = []
        for entry in cluster.names {
            let peer = try RawPeer(cluster.node(entry))
            for owner in cluster.names where owner != entry {
                for residue in 0..<6 {
                    let feed = Self.feed(
                        ownedBy: owner, among: cluster.names, residue: residue, modulus: 6, prefix: "f\(entry)")
                    let acked = try peer.request([
                        "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("acked"),
                    ])
                    #expect(acked["ok"] == true, "through \(entry) to \(owner): \(acked)")
                    try peer.pushRaw(
                        (["op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("pushed")]
                            as JSONValue).serialized())
                    expected.append((entry, feed, ["acked", "pushed"]))
                }
            }
        }
        // The pushed upserts arrive in their own time: wait (bounded) until every one is stored.
        for (entry, feed, ids) in expected {
            let peer = try RawPeer(cluster.node(entry))
            let deadline = Date().addingTimeInterval(ClusterEndToEndTests.patience)
            var stored: [String] = []
            while Date() < deadline {
                stored = PostgreSQLStoreEndToEndTests.rowIDs(
                    try peer.request(["op": "snapshot", "feed": .string(feed)]))
                if stored.sorted() == ids { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            #expect(stored.sorted() == ids, "\(feed) through \(entry): \(stored)")
        }

        // A clean stop: every loop stops, then the node hands its leases back, and the others'
        // loops take its partitions over and answer for its feeds.
        let leaving = cluster.node("n3")
        leaving.signal(SIGTERM)
        #expect(leaving.waitForExit(timeout: ClusterEndToEndTests.patience) == 0, "\(leaving.log)")
        #expect(leaving.log.contains("left the cluster"), "\(leaving.log)")
        try cluster.settle(["n1", "n2"])
        for (entry, feed, ids) in expected where entry != "n3" {
            let stored = PostgreSQLStoreEndToEndTests.rowIDs(
                try RawPeer(cluster.node(entry)).request(["op": "snapshot", "feed": .string(feed)]))
            #expect(stored.sorted() == ids, "\(feed) through \(entry) after n3 left: \(stored)")
        }
    }
}
