import Foundation
import RowCastClient
import RowCastDaemon
import RowCastJSON
import RowCastTesting
import RowCastWire
import Testing
import ZeroMQ

/// Cluster nodes with CURVE (docs/SECURITY.md, "Cluster nodes"): two rowcastd nodes on one
/// real PostgreSQL share one server key pair; a client reaches either node with that one key,
/// and a request a node forwards is checked on the owner against the original client's grants.
@Suite(.serialized, .enabled(if: PostgreSQLTestServer.testsEnabled))
struct ClusterCurveEndToEndTests {
    typealias Curve = CurveEndToEndTests

    /// Two CURVE nodes sharing `serverKeyFile`, each with its own state directory.
    final class CurveCluster {
        let names: [String]
        let clients: TemporaryDirectory
        let keys: TemporaryDirectory
        let serverKey: (publicKey: String, secretKey: String)
        let plugins: TemporaryDirectory
        private(set) var nodes: [String: DaemonProcess] = [:]

        /// With `ownKeys`, those nodes generate a server key pair of their own instead; every
        /// node runs `threads` engine threads.
        init(
            url: String, clients: TemporaryDirectory, names: [String] = ["n1", "n2"], ownKeys: Set<String> = [],
            threads: Int = 1
        ) throws {
            self.clients = clients
            self.names = names
            keys = try TemporaryDirectory("rowcast-server-key")
            plugins = try DaemonProcess.pluginDirectory()
            serverKey = try ZeroMQ.Curve.keyPair()
            let file = keys.path + "/server.key"
            try "public-key = \"\(serverKey.publicKey)\"\nsecret-key = \"\(serverKey.secretKey)\"\n".write(
                toFile: file, atomically: true, encoding: .utf8)
            chmod(file, 0o600)
            for name in names {
                nodes[name] = try DaemonProcess(
                    pluginDirectory: plugins,
                    extraArguments: [
                        "--store", url, "--node-name", name, "--lease-ms", "\(ClusterEndToEndTests.leaseMilliseconds)",
                        "--curve", "--curve-clients", clients.path,
                    ] + (ownKeys.contains(name) ? [] : ["--curve-server-key", file])
                        + (threads > 1 ? ["--engine-threads", "\(threads)"] : []),
                    timeout: 60)
            }
        }

        func node(_ name: String) -> DaemonProcess { nodes[name]! }

        /// A peer of `name`'s sockets with the client key pair `pair` (and the shared server key,
        /// unless another is given).
        func peer(
            _ name: String, _ pair: (publicKey: String, secretKey: String), serverKey other: String? = nil
        ) throws -> RawPeer {
            try RawPeer(
                node(name),
                curve: TestCurveKeys(
                    serverKey: other ?? serverKey.publicKey, publicKey: pair.publicKey, secretKey: pair.secretKey))
        }

        /// Kills `name` with SIGKILL.
        func kill(_ name: String) {
            nodes[name]?.crash()
            nodes[name] = nil
        }

        func stopAll() {
            for node in nodes.values { node.stop() }
            nodes = [:]
        }

        /// Waits until every partition is with the node `PartitionAssignment` gives it, as
        /// `admin`'s status of each node shows.
        func settle(admin: [String: RawPeer]) throws {
            let names = Array(admin.keys)
            let assignment = PartitionAssignment(nodes: names)
            let deadline = Date().addingTimeInterval(ClusterEndToEndTests.patience)
            var last = ""
            while Date() < deadline {
                var settled = true
                for name in names {
                    let status = try admin[name]!.request(["op": "status"])
                    var owned: [Int: String] = [:]
                    for node in status["cluster"]?["nodes"]?.arrayValue ?? [] {
                        for partition in node["partitions"]?.arrayValue ?? [] {
                            owned[Int(partition.numberValue ?? -1)] = node["name"]?.stringValue
                        }
                    }
                    let wrong = Partition.all.filter { owned[$0.index] != assignment.owner(of: $0) }
                    if !wrong.isEmpty {
                        settled = false
                        last = "\(name): \(wrong.count) partitions not with their owner"
                    }
                }
                if settled { return }
                Thread.sleep(forTimeInterval: 0.2)
            }
            throw TestFailure("the cluster did not settle within \(ClusterEndToEndTests.patience) s: \(last)")
        }
    }

    @Test(
        "a client allowed one feed reaches the node that does not own it: its request there is applied on the owner, one for another feed gets the owner's forbidden, a forged client frame is refused, ingest is checked the same way, and a CURVE relay of both nodes delivers (nodes with 1 and 3 engine threads)",
        .timeLimit(.minutes(4)), arguments: [1, 3])
    func grantsCheckedOnTheOwner(threads: Int) throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let names = ["n1", "n2"]
        let allowed = ClusterEndToEndTests.feed(ownedBy: "n2", among: names, prefix: "allowed")
        let other = ClusterEndToEndTests.feed(ownedBy: "n2", among: names, prefix: "other")
        let clients = try TemporaryDirectory("rowcast-clients")
        let admin = try Curve.client("admin", in: clients, allow: ["all *"])
        let producer = try Curve.client("producer", in: clients, allow: ["publish,read \(allowed)"])
        let relayKey = try Curve.client("relay", in: clients, allow: ["read *"])
        let cluster = try CurveCluster(url: url, clients: clients, threads: threads)
        defer { cluster.stopAll() }
        let adminPeers = try Dictionary(uniqueKeysWithValues: cluster.names.map { ($0, try cluster.peer($0, admin)) })
        try cluster.settle(admin: adminPeers)
        let status = try adminPeers["n1"]!.request(["op": "status"])
        #expect(status["engineThreads"] == (threads > 1 ? .number(Double(threads)) : nil), "\(status)")
        for node in status["cluster"]?["nodes"]?.arrayValue ?? [] {
            #expect(node["serverKey"] == .string(cluster.serverKey.publicKey), "\(node)")
            #expect(node["serverKeyDiffers"] == false, "\(node)")
        }

        let viaN1 = try cluster.peer("n1", producer)
        let atOwner = try cluster.peer("n2", producer)
        let owner = adminPeers["n2"]!
        try owner.subscribe([Array("errors.\(other)".utf8) + [0], Array("errors.\(allowed)".utf8) + [0]])

        // Allowed: forwarded by n1, applied on n2, under the producer's name.
        let applied = try viaN1.request([
            "op": "upsert", "feed": .string(allowed), "item": DaemonEndToEndTests.product("1"),
        ])
        #expect(applied["ok"] == true, "\(applied)")
        let stored = try owner.request(["op": "snapshot", "feed": .string(allowed)])
        #expect(stored.description.contains("\"id\":\"1\""), "\(stored)")
        #expect(try viaN1.request(["op": "snapshot", "feed": .string(allowed)])["ok"] == true)

        // Not allowed: the same forbidden as the owner gives the client directly.
        let request: JSONValue = [
            "op": "upsert", "feed": .string(other), "item": DaemonEndToEndTests.product("2"), "req": "r-other",
        ]
        let forwarded = try viaN1.request(request)
        let direct = try atOwner.request(request)
        #expect(forwarded["error"]?["code"] == "forbidden", "\(forwarded)")
        #expect(forwarded == direct, "forwarded \(forwarded), direct \(direct)")
        #expect(
            forwarded["error"]?["message"]?.stringValue?.contains(
                "client \"producer\" lacks the publish permission on feed \"\(other)\"") == true)
        #expect(try viaN1.request(["op": "snapshot", "feed": .string(other)])["error"]?["code"] == "forbidden")

        // A client frame from a client is refused on either node, nothing applied.
        let forged =
            ["op": "upsert", "feed": .string(other), "item": DaemonEndToEndTests.product("3"), "req": "f"]
            as JSONValue
        let adminFrame = Array("rowcast-client:\(admin.publicKey)".utf8)
        for peer in [viaN1, atOwner] {
            _ = try peer.dealer.send([[], forged.serialized(), adminFrame])
            let frames = try #require(try peer.dealer.receiveMultipart())
            let reply = try JSONParser.parse(frames[1])
            #expect(reply["error"]?["code"] == "forbidden", "\(reply)")
            #expect(
                reply["error"]?["message"]?.stringValue?.contains("only a cluster node may send") == true, "\(reply)")
        }
        #expect(!(try owner.request(["op": "status"])["feeds"]?.description.contains(other) ?? true))

        // Ingest through n1: the allowed upsert is applied on n2, the other refused there on
        // the feed's error topic; a forged frame over ingest is refused too.
        try viaN1.pushRaw(
            (["op": "upsert", "feed": .string(allowed), "item": DaemonEndToEndTests.product("4")] as JSONValue)
                .serialized())
        try viaN1.pushRaw(
            (["op": "upsert", "feed": .string(other), "item": DaemonEndToEndTests.product("5"), "req": "ingest-other"]
                as JSONValue).serialized())
        let (_, refusal) = try owner.receive { topic, body in
            topic == "errors.\(other)" && body.description.contains("ingest-other")
        }
        #expect(refusal["code"] == "forbidden", "\(refusal)")
        #expect(
            refusal["message"]?.stringValue?.contains("client \"producer\" lacks the publish permission") == true,
            "\(refusal)")
        _ = try atOwner.push.send(
            [
                ([
                    "op": "upsert", "feed": .string(allowed), "item": DaemonEndToEndTests.product("6"),
                    "req": "forged-ingest",
                ]
                    as JSONValue).serialized(), adminFrame,
            ])
        let (_, forgedIngest) = try owner.receive { topic, body in
            topic == "errors.\(allowed)" && body.description.contains("forged-ingest")
        }
        #expect(forgedIngest["code"] == "forbidden", "\(forgedIngest)")
        #expect(
            forgedIngest["message"]?.stringValue?.contains("only a cluster node may send") == true, "\(forgedIngest)")
        try waitUntil("the forwarded ingest upsert is on the owner") {
            (try? owner.request(["op": "snapshot", "feed": .string(allowed)]))?.description.contains("\"id\":\"4\"")
                == true
        }
        let final = try owner.request(["op": "snapshot", "feed": .string(allowed)])
        #expect(!final.description.contains("\"id\":\"6\""), "the forged ingest was applied: \(final)")
        #expect(!(try owner.request(["op": "status"])["feeds"]?.description.contains(other) ?? true))
        let n2Status = try owner.request(["op": "status"])
        #expect((n2Status["curve"]?["admittedNodes"]?.numberValue ?? 0) >= 1, "\(n2Status["curve"] ?? .null)")
        // One forged request and one forged ingest message reached n2 (the other forged request, n1).
        #expect(n2Status["curve"]?["refusedClientFrames"] == 2, "\(n2Status["curve"] ?? .null)")
        try waitUntil("n2 logged the refused client frame") {
            cluster.node("n2").log.contains("refused a message for its client frame")
        }

        // A relay of both nodes with one server key and its own client key: a subscriber of it
        // gets the owner's deltas of a request sent through the other node.
        let relayKeyFile = cluster.clients.path + "/relay.secret"
        try "public-key = \"\(relayKey.publicKey)\"\nsecret-key = \"\(relayKey.secretKey)\"\n".write(
            toFile: relayKeyFile, atomically: true, encoding: .utf8)
        chmod(relayKeyFile, 0o600)
        let relay = try RelayProcess(
            upstreamPublish: cluster.node("n1").publish, upstreamControl: cluster.node("n1").control,
            extra: [
                "--upstream-publish", cluster.node("n2").publish, "--server-key", cluster.serverKey.publicKey,
                "--key", relayKeyFile,
            ])
        defer { _ = relay.stop() }
        let context = try Context()
        let subscriber = try Socket(context: context, type: .sub)
        defer { subscriber.close() }
        try subscriber.setOption(.linger, 0)
        try subscriber.setOption(.receiveTimeout, RawPeer.timeoutMilliseconds)
        try subscriber.subscribe(Array("rows.\(allowed)".utf8) + [0])
        try subscriber.connect(relay.publish)
        var delivered = false
        for attempt in 0..<20 where !delivered {
            // A subscription reaches the nodes through the relay a moment after it is made.
            let sent = try viaN1.request([
                "op": "upsert", "feed": .string(allowed), "item": DaemonEndToEndTests.product("r\(attempt)"),
            ])
            #expect(sent["ok"] == true, "\(sent)")
            // Only the deltas of these upserts come on the topic: the earlier ones came before it.
            if let frames = try subscriber.receiveMultipart(), frames.count == 2 {
                delivered = String(decoding: frames[1], as: UTF8.self).contains("\"r")
            }
        }
        #expect(delivered, "no delta of \(allowed) came through the CURVE relay")
    }

    @Test(
        "a node with a server key of its own is shown as differing, and what would be forwarded between it and the others is refused naming both keys",
        .timeLimit(.minutes(3)))
    func differentServerKeys() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let names = ["n1", "n2"]
        let clients = try TemporaryDirectory("rowcast-clients")
        let admin = try Curve.client("admin", in: clients, allow: ["all *"])
        let cluster = try CurveCluster(url: url, clients: clients, ownKeys: ["n2"])
        defer { cluster.stopAll() }
        let otherKey = try Curve.serverKey(cluster.node("n2"))
        #expect(otherKey != cluster.serverKey.publicKey)
        let peers = [
            "n1": try cluster.peer("n1", admin), "n2": try cluster.peer("n2", admin, serverKey: otherKey),
        ]
        try cluster.settle(admin: peers)

        let status = try peers["n1"]!.request(["op": "status"])
        let n2 = status["cluster"]?["nodes"]?.arrayValue?.first { $0["name"] == "n2" }
        #expect(n2?["serverKey"] == .string(otherKey), "\(status["cluster"] ?? .null)")
        #expect(n2?["serverKeyDiffers"] == true, "\(status["cluster"] ?? .null)")

        for (from, to) in [("n1", "n2"), ("n2", "n1")] {
            let feed = ClusterEndToEndTests.feed(ownedBy: to, among: names, prefix: "keys")
            let reply = try peers[from]!.request([
                "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("1"),
            ])
            #expect(reply["error"]?["code"] == "partition_unavailable", "\(reply)")
            let message = reply["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("needs the same curve setting and the same server key pair"), "\(message)")
            #expect(message.contains(otherKey) && message.contains(cluster.serverKey.publicKey), "\(message)")
            // The log reaches the test through a pipe, after the reply: wait for it (bounded).
            try waitUntil("\(from) logged that it cannot forward") {
                cluster.node(from).log.contains("cannot forward to a cluster node")
            }
        }
    }

    @Test(
        "acked publishing with CURVE through a node while the feed's owner is killed: the requests that move to the new owner keep their client, and every acked item is stored once",
        .timeLimit(.minutes(4)))
    func ownerKilledUnderCurve() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let names = ["n1", "n2", "n3"]
        let feed = ClusterEndToEndTests.feed(ownedBy: "n2", among: names, prefix: "failover")
        let clients = try TemporaryDirectory("rowcast-clients")
        let admin = try Curve.client("admin", in: clients, allow: ["all *"])
        let producer = try Curve.client("producer", in: clients, allow: ["publish,read failover-*"])
        let cluster = try CurveCluster(url: url, clients: clients, names: names)
        defer { cluster.stopAll() }
        try cluster.settle(admin: Dictionary(uniqueKeysWithValues: try names.map { ($0, try cluster.peer($0, admin)) }))

        let publisher = try AckedPublisher(
            endpoint: cluster.node("n1").control,
            options: AckedPublisherOptions(
                window: 32, retryTimeout: .milliseconds(500), timeout: .seconds(Int(ClusterEndToEndTests.patience)),
                connectTimeout: .milliseconds(200)),
            curve: try CurveCredentials(serverKey: cluster.serverKey.publicKey, secretKey: producer.secretKey))
        var results: [AckedResult] = []
        var sent = 0
        var killedAt: Int?
        let started = Date()
        while sent < 2000, Date().timeIntervalSince(started) < ClusterEndToEndTests.patience {
            try publisher.submit([
                "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product("i\(sent)"),
            ])
            sent += 1
            results += publisher.takeResults()
            if sent == 150 {
                cluster.kill("n2")
                killedAt = sent
            }
            if let killedAt {
                let after = PostgreSQLStoreEndToEndTests.ackedIDs(results).filter {
                    (Int($0.dropFirst()) ?? 0) >= killedAt
                }
                if after.count >= 100 { break }
            }
        }
        try publisher.flush()
        results += publisher.takeResults()

        let acked = PostgreSQLStoreEndToEndTests.ackedIDs(results)
        #expect(acked.count > 150, "\(acked.count) acked")
        for result in results {
            // Nothing is refused for its client: the moved requests kept it.
            guard case .failure(let error) = result.result else { continue }
            #expect(["partition_unavailable", "forward_timeout", "storage_error"].contains(error.code), "\(error)")
        }
        let live = ["n1", "n3"]
        let successor = PartitionAssignment(nodes: live).owner(of: Partition(feed: feed))!
        let snapshot = try cluster.peer(successor, admin).request(["op": "snapshot", "feed": .string(feed)])
        let ids = PostgreSQLStoreEndToEndTests.rowIDs(snapshot)
        #expect(ids.count == Set(ids).count, "an item is in the snapshot twice")
        #expect(Set(acked).isSubset(of: Set(ids)), "\(Set(acked).subtracting(ids).count) acked items missing")

        // On the new owner, the client's grants still decide.
        try cluster.settle(admin: Dictionary(uniqueKeysWithValues: try live.map { ($0, try cluster.peer($0, admin)) }))
        let elsewhere = ClusterEndToEndTests.feed(ownedBy: "n3", among: live, prefix: "elsewhere")
        let refused = try cluster.peer("n1", producer).request([
            "op": "upsert", "feed": .string(elsewhere), "item": DaemonEndToEndTests.product("x"),
        ])
        #expect(refused["error"]?["code"] == "forbidden", "\(refused)")
        #expect(
            refused["error"]?["message"]?.stringValue?.contains("client \"producer\" lacks the publish permission")
                == true, "\(refused)")
    }

    /// Waits (at most the cluster tests' patience) until `condition` holds.
    func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
        try EndToEndTests.waitUntil(what, seconds: ClusterEndToEndTests.patience, interval: 0.1, condition)
    }
}
