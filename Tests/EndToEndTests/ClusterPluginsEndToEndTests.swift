import Foundation
import RowCastJSON
import RowCastTesting
import Testing

/// Nodes must run the same plugin builds; one that does not is named by the others.
@Suite(.serialized, .enabled(if: PostgreSQLTestServer.testsEnabled))
struct ClusterPluginsEndToEndTests {
    @Test(
        "a node whose plugins differ is shown as differing in the others' status and named in their log",
        .timeLimit(.minutes(3)))
    func pluginsDiffer() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        func node(_ name: String, plugins: [String]) throws -> DaemonProcess {
            try DaemonProcess(
                pluginDirectory: try DaemonProcess.pluginDirectory(plugins),
                extraArguments: [
                    "--store", url, "--node-name", name, "--lease-ms", "\(ClusterEndToEndTests.leaseMilliseconds)",
                ],
                timeout: 60)
        }
        let n1 = try node("n1", plugins: ["librowcast-product.so", "librowcast-advertising.so"])
        defer { n1.stop() }
        let n2 = try node("n2", plugins: ["librowcast-product.so"])
        defer { n2.stop() }
        let n3 = try node("n3", plugins: ["librowcast-product.so", "librowcast-advertising.so"])
        defer { n3.stop() }

        func differing(through daemon: DaemonProcess) throws -> [String: Bool] {
            let status = try RawPeer(daemon).request(["op": "status"])
            var differ: [String: Bool] = [:]
            for node in status["cluster"]?["nodes"]?.arrayValue ?? [] {
                if let name = node["name"]?.stringValue { differ[name] = node["pluginsDiffer"] == true }
            }
            return differ
        }
        try waitUntil("every node seeing the three", seconds: 30) {
            try [n1, n2, n3].allSatisfy { try differing(through: $0).count == 3 }
        }
        #expect(try differing(through: n1) == ["n1": false, "n2": true, "n3": false])
        #expect(try differing(through: n3) == ["n1": false, "n2": true, "n3": false])
        #expect(try differing(through: n2) == ["n1": true, "n2": false, "n3": true])
        try waitUntil("n1's log naming n2", seconds: 10) {
            n1.log.split(separator: "\n").contains {
                $0.contains("other nodes run other plugin builds") && $0.contains("n2") && !$0.contains("n3")
            }
        }
        let text = try CommandRunner.run(["status", "--control", n1.control])
        #expect(text.stdout.contains("DIFFER"), "\(text.stdout)")
    }
}
