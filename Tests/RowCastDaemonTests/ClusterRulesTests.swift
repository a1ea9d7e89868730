import Foundation
import RowCastDaemon
import Testing

/// What a cluster node's configuration must hold, and the endpoints it advertises.
struct ClusterRulesTests {
    @Test(
        "node names are plain words of at most 64 bytes",
        arguments: ["a", "node-1", "eu_west.2", String(repeating: "n", count: 64)])
    func goodNames(name: String) {
        #expect(ClusterRules.problem(withNodeName: name) == nil)
    }

    @Test("anything else is refused", arguments: ["a b", "a/b", "nöde", "a:b", String(repeating: "n", count: 65)])
    func badNames(name: String) {
        #expect(ClusterRules.problem(withNodeName: name) != nil)
    }

    @Test("a node name needs a PostgreSQL store, with or without CURVE; the file names the key")
    func nodeNeedsPostgreSQL() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/rowcastd.yaml"
        let cases: [(String, String)] = [
            ("cluster:\n  node_name: \"a\"\n", "needs a PostgreSQL store"),
            ("store: \"sqlite:///tmp/x\"\ncluster:\n  node_name: \"a\"\n", "needs a PostgreSQL store"),
            ("store: \"sqlite:///tmp/x\"\ncurve: true\ncluster:\n  node_name: \"a\"\n", "needs a PostgreSQL store"),
        ]
        for (yaml, problem) in cases {
            try yaml.write(toFile: file, atomically: true, encoding: .utf8)
            let source = ConfigurationSource(
                defaults: DaemonConfiguration(), file: file, overrides: ConfigurationOverrides())
            do {
                _ = try source.load()
                Issue.record("accepted: \(yaml)")
            } catch {
                #expect(error.key == "cluster.node_name" && error.problem.contains(problem), "\(error)")
            }
        }
        try "store: \"postgresql://rowcast@db/rowcast\"\ncluster:\n  node_name: \"a\"\n  lease_ms: 1500\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let loaded = try ConfigurationSource(
            defaults: DaemonConfiguration(), file: file, overrides: ConfigurationOverrides()
        ).load()
        #expect(loaded.nodeName == "a" && loaded.leaseMilliseconds == 1500)
        try "store: \"postgresql://rowcast@db/rowcast\"\ncurve: true\ncluster:\n  node_name: \"a\"\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let curve = try ConfigurationSource(
            defaults: DaemonConfiguration(), file: file, overrides: ConfigurationOverrides()
        ).load()
        #expect(curve.nodeName == "a" && curve.curveEnabled)
    }

    @Test("a wildcard or loopback TCP endpoint is advertised under the configured host; others as bound")
    func advertisedEndpoints() {
        let bound = (ingest: "tcp://*:7701", control: "tcp://127.0.0.1:7702", publish: "tcp://10.0.0.1:7703")
        let endpoints = NodeEndpoints(bound: bound, advertising: "node-a.example")
        #expect(endpoints.ingest == "tcp://node-a.example:7701")
        #expect(endpoints.control == "tcp://node-a.example:7702")
        #expect(endpoints.publish == "tcp://10.0.0.1:7703")
        #expect(
            NodeEndpoints(bound: bound, advertising: "")
                == NodeEndpoints(
                    ingest: bound.ingest, control: bound.control, publish: bound.publish))
        #expect(NodeEndpoints(json: endpoints.json) == endpoints)
        #expect(!endpoints.json.contains("serverKey"))
        var curve = endpoints
        curve.serverKey = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
        #expect(NodeEndpoints(json: curve.json) == curve)
        #expect(NodeEndpoints(json: curve.json) != endpoints)
        #expect(NodeEndpoints(json: "{}") == nil)
    }
}
