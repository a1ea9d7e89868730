import Foundation
import RowCastJSON
import RowCastTesting
import Testing

/// The web gateway against one node of a cluster: it follows a feed another node serves, its
/// deltas included (each node publishes only the feeds it serves, so the gateway subscribes to
/// every node it learns of from `status`).
@Suite(.serialized, .enabled(if: PostgreSQLTestServer.testsEnabled))
struct ClusterGatewayEndToEndTests {
    @Test(
        "rowcast serve pointed at one node streams a feed that another node serves: its snapshot, then its deltas",
        .timeLimit(.minutes(3)))
    func streamsAnotherNodesFeed() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let cluster = try ClusterEndToEndTests.Cluster(url: url, count: 2)
        defer { cluster.stopAll() }
        try cluster.settle(["n1", "n2"])
        let feed = ClusterEndToEndTests.feed(ownedBy: "n2", among: ["n1", "n2"], prefix: "gateway")
        let n1 = cluster.node("n1")
        let peer = try RawPeer(n1)
        func upsert(_ id: String) throws {
            let reply = try peer.request([
                "op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product(id),
            ])
            #expect(reply["ok"] == true, "\(reply)")
        }
        try upsert("a")

        let serve = try CommandRunner([
            "serve", "--http", "127.0.0.1:0", "--control", n1.control, "--publish", n1.publish,
        ])
        defer { _ = serve.wait(timeout: 5) }
        var http = ""
        try waitUntil("rowcast serve's ready line (\(serve.stderr))", seconds: 20) {
            http =
                serve.stdout.split(separator: " ").first { $0.hasPrefix("http=") }.map { String($0.dropFirst(5)) } ?? ""
            return !http.isEmpty
        }
        let stream = try SSEReader(url: http + "/feeds/\(feed)/stream")
        defer { stream.stop() }
        try waitUntil("the stream's snapshot", seconds: 20) { stream.text.contains(#""event":"snapshot""#) }
        #expect(stream.text.contains(#""id":"a""#), "\(stream.text)")

        // Items published after the snapshot reach the stream only as n2's deltas. A few, some
        // time apart: a subscription takes a moment to reach a publisher.
        var sent = 0
        try waitUntil("a delta of \(feed), owned by n2, at the gateway on n1", seconds: 20, interval: 0.3) {
            sent += 1
            try upsert("b\(sent)")
            return stream.text.contains(#""id":"b"#)
        }
        #expect(stream.text.components(separatedBy: #""event":"snapshot""#).count == 2, "one snapshot only")
    }
}
