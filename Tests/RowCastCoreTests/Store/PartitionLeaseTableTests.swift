import Foundation
import RowCastEngine
import RowCastPostgres
import RowCastTesting
import RowCastWire
import Testing

/// The lease rows and the node registry of a cluster (`PartitionLeaseTable`), on a real server.
@Suite(.enabled(if: PostgreSQLTestServer.testsEnabled))
struct PartitionLeaseTableTests {
    /// A new database with the store's schema, and a lease table on it.
    func table() throws -> (url: String, table: PartitionLeaseTable) {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        try PostgreSQLFeedStore(url: url, node: "schema", lease: ClusterTest.lease, logger: ClusterTest.logger).close()
        return (url, try PartitionLeaseTable(url: url, logger: ClusterTest.logger))
    }

    let p0 = Partition(index: 0)!
    let p1 = Partition(index: 1)!
    let p2 = Partition(index: 2)!

    @Test("heartbeats register nodes; live nodes are those heard from within the lease, by name")
    func heartbeats() throws {
        let (url, table) = try table()
        defer { table.close() }
        try table.heartbeat(node: "b", endpoints: #"{"zmq":"tcp://b"}"#, plugins: "[]")
        try table.heartbeat(node: "a", endpoints: #"{"zmq":"tcp://a"}"#, plugins: #"["product"]"#)
        let started = try ClusterTest.value("SELECT started_at::text FROM rowcast.nodes WHERE name = 'a'", url: url)
        try table.heartbeat(node: "a", endpoints: #"{"zmq":"tcp://a2"}"#, plugins: "[]")
        let nodes = try table.liveNodes(within: .seconds(60))
        #expect(nodes.map(\.name) == ["a", "b"])
        #expect(nodes.first?.endpoints == #"{"zmq":"tcp://a2"}"# && nodes.first?.plugins == "[]")
        #expect(nodes.allSatisfy { $0.heartbeatAge >= .zero && $0.heartbeatAge < .seconds(60) }, "\(nodes)")
        #expect(
            try ClusterTest.value("SELECT started_at::text FROM rowcast.nodes WHERE name = 'a'", url: url) == started)
        #expect(
            try ClusterTest.value(
                "SELECT heartbeat_at > started_at FROM rowcast.nodes WHERE name = 'a'", url: url) == "t")

        // A node last heard from an hour ago (by the server's clock) is not live.
        _ = try ClusterTest.value(
            "UPDATE rowcast.nodes SET heartbeat_at = clock_timestamp() - interval '1 hour' WHERE name = 'b'", url: url)
        #expect(try table.liveNodes(within: .seconds(60)).map(\.name) == ["a"])
        #expect(try table.liveNodes(within: .seconds(7200)).map(\.name) == ["a", "b"])
    }

    @Test("every partition has a lease row; acquiring takes free ones, bumps the token, and keeps it on renewal")
    func acquire() throws {
        let (_, table) = try table()
        defer { table.close() }
        let fresh = try table.leases()
        #expect(fresh.count == Partition.count && fresh.map(\.partition) == Partition.all)
        #expect(fresh.allSatisfy { $0.owner == nil && $0.token == 0 && $0.expiresIn == nil })

        #expect(try table.acquire([p0, p1], node: "a", lease: .seconds(30)) == [p0: 1, p1: 1])
        #expect(try table.acquire([p1, p2], node: "b", lease: .seconds(30)) == [p2: 1])
        // Its own again: the token stays, the lease runs from now.
        #expect(try table.acquire([p0, p2], node: "a", lease: .seconds(60)) == [p0: 1])
        #expect(try table.acquire([], node: "a", lease: .seconds(30)) == [:])
        let leases = try table.leases()
        #expect(leases[0].owner == "a" && leases[1].owner == "a" && leases[2].owner == "b")
        #expect(leases[3].owner == nil && leases[3].expiresIn == nil)
        let expiresIn = try #require(leases[0].expiresIn)
        #expect(expiresIn > .seconds(30) && expiresIn <= .seconds(60), "\(expiresIn)")
    }

    @Test("an expired lease is taken over with a higher token; the old owner's renewal then leaves it out")
    func expiry() throws {
        let (_, table) = try table()
        defer { table.close() }
        let held = try table.acquire([p0, p1], node: "a", lease: .milliseconds(300))
        #expect(held == [p0: 1, p1: 1])
        #expect(try table.acquire([p0], node: "b", lease: .seconds(30)) == [:])
        var taken: [Partition: Int64] = [:]
        var takenOver: Set<Partition> = []
        let expired = try ClusterTest.waitUntil {
            taken = try table.acquire([p0], node: "b", lease: .seconds(30), takenOver: &takenOver)
            return !taken.isEmpty
        }
        #expect(expired && taken == [p0: 2])
        #expect(takenOver == [p0])
        // A free partition taken, or one's own renewed through acquire, is no takeover.
        var none: Set<Partition> = []
        #expect(try table.acquire([p0, p2], node: "b", lease: .seconds(30), takenOver: &none) == [p0: 2, p2: 1])
        #expect(none.isEmpty)
        #expect(try table.leases()[1].expiresIn.map { $0 < .zero } == true)
        // p1 expired too but nobody took it: still a's, with the same token.
        #expect(try table.renew(held, node: "a", lease: .seconds(30)) == [p1: 1])
        #expect(try table.renew([p0: 2], node: "b", lease: .seconds(30)) == [p0: 2])
        #expect(try table.renew([p0: 1], node: "b", lease: .seconds(30)) == [:])
        #expect(try table.renew([:], node: "b", lease: .seconds(30)) == [:])
    }

    @Test("release frees only the node's own partitions and keeps the token; leave frees all and unregisters")
    func releaseAndLeave() throws {
        let (_, table) = try table()
        defer { table.close() }
        try table.heartbeat(node: "a", endpoints: "{}", plugins: "[]")
        try table.heartbeat(node: "b", endpoints: "{}", plugins: "[]")
        _ = try table.acquire([p0, p1], node: "a", lease: .seconds(30))
        _ = try table.acquire([p2], node: "b", lease: .seconds(30))
        try table.release([p0, p2], node: "a")
        var leases = try table.leases()
        #expect(leases[0].owner == nil && leases[0].token == 1 && leases[0].expiresIn == nil)
        #expect(leases[2].owner == "b" && leases[2].token == 1)
        #expect(try table.acquire([p0], node: "b", lease: .seconds(30)) == [p0: 2])

        try table.leave(node: "b")
        leases = try table.leases()
        #expect(leases[0].owner == nil && leases[2].owner == nil && leases[1].owner == "a")
        #expect(try table.liveNodes(within: .seconds(60)).map(\.name) == ["a"])
    }

    @Test("an unreachable server is unavailable; after the server comes back the next call connects again")
    func reconnects() throws {
        let unreachable = "postgresql://postgres@127.0.0.1:1/rowcast"
        do {
            _ = try PartitionLeaseTable(url: unreachable, logger: ClusterTest.logger)
            Issue.record("a lease table opened on a closed port")
        } catch {
            #expect(error.kind == .unavailable && error.message.contains(unreachable), "\(error)")
        }

        let server = try PostgreSQLTestServer()
        defer { server.stop() }
        let url = try server.makeDatabase()
        let store = try PostgreSQLFeedStore(url: url, node: "a", lease: ClusterTest.lease, logger: ClusterTest.logger)
        defer { store.close() }
        let table = try PartitionLeaseTable(url: url, logger: ClusterTest.logger)
        defer { table.close() }
        #expect(try table.acquire([p0], node: "a", lease: .seconds(30)) == [p0: 1])
        try server.stopServer(mode: "immediate")
        #expect(throws: StoreError.self) { try table.leases() }
        do {
            _ = try table.leases()
        } catch {
            #expect(error.kind == .unavailable, "\(error)")
        }
        try server.start()
        #expect(try table.leases()[0].owner == "a")

        // The store connects again with its locks: a second node "a" and a single rowcastd
        // are still refused.
        _ = try? store.feeds(named: ["f"])  // may find the old connection broken first
        #expect(try store.feeds(named: ["f"]).isEmpty)
        do {
            try PostgreSQLFeedStore(url: url, node: "a", lease: ClusterTest.lease, logger: ClusterTest.logger).close()
            Issue.record("a second node a opened after the first reconnected")
        } catch {
            #expect(error.kind == .locked, "\(error)")
        }
        do {
            try PostgreSQLFeedStore(url: url, logger: ClusterTest.logger).close()
            Issue.record("a single rowcastd opened beside node a after it reconnected")
        } catch {
            #expect(error.kind == .locked, "\(error)")
        }
    }
}
