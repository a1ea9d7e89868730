import Foundation
import RowCastJSON
import Testing

/// `rowcast publish --client NAME --req N`: running the same command again, also after rowcastd
/// restarted, gets the first run's answers from the daemon's ledger instead of applying the
/// requests twice; the flags that cannot go with it are refused, naming them.
@Suite(.serialized)
struct PublishRetryEndToEndTests {
    /// The replies of one `rowcast publish --json` run, one per line.
    func publish(_ daemon: DaemonProcess, _ arguments: [String]) throws -> [JSONValue] {
        let run = try CommandRunner.run(["publish", "--control", daemon.control, "--json"] + arguments)
        #expect(run.process.terminationStatus == 0, "\(run.stderr)")
        return try run.stdout.split(separator: "\n").map { try JSONParser.parse(Array($0.utf8)) }
    }

    @Test("a repeated --client/--req publish returns the first answers, also after a restart")
    func repeatedPublishIsAnsweredFromTheLedger() throws {
        let state = try TemporaryDirectory("rowcast-state")
        let plugins = try DaemonProcess.pluginDirectory(["librowcast-product.so"])
        var daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        defer { daemon.stop() }
        func item(_ price: Int) -> [String] {
            [
                "--feed", "cars", "--type", "product", "--id", "1", "--field", "name=Model 3", "--field",
                "operatedBy=Tesla",
                "--field", "price=\(price)", "--field", "image=https://img/1.png",
            ]
        }
        let first = try publish(daemon, item(100) + ["--client", "import-7", "--req", "41"])
        #expect(first.count == 1)
        #expect(first[0]["ok"] == true)
        #expect(first[0]["req"] == 41)
        let seq = first[0]["seq"]

        // The same client and req with another price: the first answer, nothing applied.
        let again = try publish(daemon, item(200) + ["--client", "import-7", "--req", "41"])
        #expect(again[0]["seq"] == seq, "\(again)")
        daemon.stop()
        daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        let afterRestart = try publish(daemon, item(300) + ["--client", "import-7", "--req", "41"])
        #expect(afterRestart[0]["seq"] == seq, "\(afterRestart)")
        let snapshot = try RawPeer(daemon).request(["op": "snapshot", "feed": "cars"])
        #expect(snapshot["seq"] == seq)
        #expect(snapshot.description.contains("\"price\":\"$100\""), "\(snapshot)")

        // The next req is a new request.
        let next = try publish(daemon, item(400) + ["--client", "import-7", "--req", "42"])
        #expect(next[0]["seq"] != seq)
    }

    @Test(
        "--req without --client, --client without --req, a --req out of range and --no-ack are refused, naming the flag",
        arguments: [
            (["--req", "3"], "--req goes with --client"), (["--client", "c"], "--client needs --req"),
            (["--client", "c", "--req", "0"], "--req must be from 1 to"),
            (["--client", "c", "--req", "4503599627370497"], "--req must be from 1 to"),
            (["--client", "c", "--req", "1", "--no-ack"], "--client and --req name acked requests"),
        ])
    func refusedCombinations(_ flags: [String], _ message: String) throws {
        let run = try CommandRunner.run(["publish", "--feed", "cars", "--type", "t", "--id", "1"] + flags)
        #expect(run.process.terminationStatus == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
