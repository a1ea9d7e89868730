import Foundation
import RowCastClient
import RowCastDaemon
import RowCastJSON
import RowCastTesting
import RowCastWire

/// Issue 38's figures: one node's acked items/s and CPU per item with the PostgreSQL store
/// beside the SQLite store, in the same run and alternating (PostgreSQL both as a single
/// rowcastd and as a cluster node, whose every commit checks its leases), and the time from killing a
/// cluster node to the first acked write of one of its feeds through another node. Needs
/// PostgreSQL's server binaries (Debian's `postgresql`); runs them as `postgres` in a
/// temporary directory, as the tests do.
struct ClusterBenchmark {
    /// Acked upserts per throughput round.
    var items = 20_000
    /// Rounds per store (alternating SQLite and PostgreSQL), best kept.
    var rounds = 2
    /// Failovers timed.
    var failovers = 3
    var results = JSONObject()

    mutating func run() throws -> String {
        if let reason = PostgreSQLTestServer.unavailableReason {
            throw BenchFailure("cluster: no PostgreSQL server to run: \(reason)")
        }
        let server = try PostgreSQLTestServer()
        defer { server.stop() }
        var table = BenchTable(
            title:
                "Cluster: acked upserts (window 256, car items ~250 bytes) through one rowcastd, store by store, alternating; then failover of a killed node",
            header: ["store", "items", "best seconds", "items/s", "CPU/item (rowcastd)"])
        var best: [String: (seconds: Double, cpu: Double)] = [:]
        let stores = ["sqlite", "postgresql", "postgresql-node"]
        for round in 0..<rounds {
            for store in stores {
                let arguments: [String]
                switch store {
                case "sqlite": arguments = []
                case "postgresql": arguments = ["--store", try server.makeDatabase()]
                default: arguments = ["--store", try server.makeDatabase(), "--node-name", "bench"]
                }
                let figure = try Self.acked(items: items, arguments: arguments, run: "r\(round)")
                if best[store].map({ figure.seconds < $0.seconds }) ?? true { best[store] = figure }
            }
        }
        for store in stores {
            let figure = best[store]!
            table.add([
                store, items.formatted, format3(figure.seconds), Int(Double(items) / figure.seconds).formatted,
                "\(format3(figure.cpu / Double(items) * 1e6)) µs",
            ])
            results[store] = [
                "items": .number(Double(items)), "seconds": .number(figure.seconds),
                "itemsPerSecond": .number(Double(items) / figure.seconds),
                "cpuMicrosecondsPerItem": .number(figure.cpu / Double(items) * 1e6),
            ]
        }
        let ratio = best["sqlite"]!.seconds / best["postgresql"]!.seconds
        results["postgresqlOverSQLite"] = .number(ratio)
        let nodeRatio = best["sqlite"]!.seconds / best["postgresql-node"]!.seconds
        results["postgresqlNodeOverSQLite"] = .number(nodeRatio)
        let times = try Self.failovers(count: failovers, url: try server.makeDatabase())
        results["failoverSeconds"] = .array(times.map { .number($0) })
        return table.render() + """
            PostgreSQL over SQLite items/s: \(format3(ratio)), as a cluster node \(format3(nodeRatio)) (target: at least 0.5)
            failover, SIGKILL of the owner to the first acked write of its feed through another node (lease 3 s): \
            \(times.map(format3).joined(separator: " / ")) s (target: under 5 s)

            """
    }

    /// Seconds and rowcastd CPU seconds to publish `items` acked upserts, 256 in flight.
    static func acked(items: Int, arguments: [String], run: String) throws -> (seconds: Double, cpu: Double) {
        let daemon = try BenchDaemon(extraArguments: arguments)
        defer { daemon.stop() }
        let requests = (0..<items).map { try! JSONParser.parse(CarFeed.upsert($0, run: run)) }
        let publisher = try AckedPublisher(
            endpoint: daemon.control,
            options: AckedPublisherOptions(window: 256, retryTimeout: .seconds(30), timeout: .seconds(120)))
        defer { publisher.close() }
        _ = publisher.publish([try JSONParser.parse(CarFeed.upsert(0, run: "warm-up"))])
        let before = ProcessCPU.sample(pid: daemon.process.processIdentifier)
        let start = ContinuousClock.now
        for request in requests { try publisher.submit(request) }
        try publisher.flush()
        let failed = publisher.takeResults().filter { if case .failure = $0.result { true } else { false } }
        let elapsed = ContinuousClock.now - start
        let cpu = ProcessCPU.sample(pid: daemon.process.processIdentifier).since(before).process
        guard failed.isEmpty else { throw BenchFailure("cluster: \(failed.count) of \(items) upserts failed") }
        return (elapsed.seconds, cpu)
    }

    /// Each time: two nodes on `url`; once both hold their share, the owner of a feed is killed
    /// with SIGKILL and an acked upsert of that feed is tried through the other node every
    /// 20 ms; the figure is the time from the kill to its first success.
    static func failovers(count: Int, url: String) throws -> [Double] {
        var times: [Double] = []
        var nodes = ["a": try node("a", url: url), "b": try node("b", url: url)]
        defer { for node in nodes.values { node.stop() } }
        for index in 0..<count {
            try settle(nodes)
            let assignment = PartitionAssignment(nodes: ["a", "b"])
            let feed = (0..<10_000).lazy.map { "failover-\(index)-\($0)" }.first {
                assignment.owner(of: Partition(feed: $0)) == "a"
            }!
            let survivor = try ControlClient(endpoint: nodes["b"]!.control, timeout: .seconds(2))
            defer { survivor.close() }
            _ = try survivor.request(item(0, feed: feed))
            kill(nodes["a"]!.process.processIdentifier, SIGKILL)
            let killed = ContinuousClock.now
            nodes["a"]!.process.waitUntilExit()
            while true {
                if (try? survivor.request(item(1, feed: feed), timeout: .seconds(1))) != nil { break }
                guard ContinuousClock.now - killed < .seconds(60) else {
                    throw BenchFailure("cluster: no acked write of \(feed) within 60 s of the kill")
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
            times.append((ContinuousClock.now - killed).seconds)
            nodes["a"]!.stop()
            nodes["a"] = try node("a", url: url)
        }
        return times
    }

    /// A car upsert of `feed`.
    static func item(_ index: Int, feed: String) -> JSONValue {
        var request = (try! JSONParser.parse(CarFeed.upsert(index, run: "failover"))).objectValue!
        request["feed"] = .string(feed)
        return .object(request)
    }

    static func node(_ name: String, url: String) throws -> BenchDaemon {
        try BenchDaemon(extraArguments: ["--store", url, "--node-name", name])
    }

    /// Waits until no partition lacks an owner and each node holds its share.
    static func settle(_ nodes: [String: BenchDaemon]) throws {
        let assignment = PartitionAssignment(nodes: nodes.keys)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            var settled = true
            for (name, daemon) in nodes {
                let control = try ControlClient(endpoint: daemon.control, timeout: .seconds(2))
                defer { control.close() }
                let cluster = try control.status()["cluster"]
                if cluster?["unowned"] != .number(0)
                    || cluster?["held"]?.arrayValue?.count != assignment.partitions(of: name).count
                {
                    settled = false
                }
            }
            if settled { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw BenchFailure("cluster: the nodes did not settle within 60 s")
    }
}
