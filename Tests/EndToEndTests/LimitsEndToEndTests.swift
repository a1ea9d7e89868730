import Foundation
import RowCastJSON
import Testing

/// The state limits and big replies as an operator meets them: `rowcast publish` names the
/// limit, `rowcast status` shows the limits and every feed, a reload raises a limit, and
/// `rowcast snapshot` and a replica get a feed far over the message limit in parts.
@Suite(.serialized)
struct LimitsEndToEndTests {
    @Test(
        "a publish past a limit fails naming it, the daemon goes on, and a reload that raises the limit lets it through"
    )
    func limitsAndReload() throws {
        let directory = try TemporaryDirectory("rowcast-config")
        let config = directory.path + "/rowcastd.yaml"
        try ServiceEndToEndTests.write("limits:\n  max_items_per_feed: 3\n  max_feeds: 2\n", to: config)
        let daemon = try DaemonProcess(plugins: ["librowcast-product.so"], extraArguments: ["--config", config])
        let control = ["--control", daemon.control]
        func publish(_ feed: String, _ id: String) throws -> CommandRunner {
            try CommandRunner.run(
                [
                    "publish", "--feed", feed, "--type", "product", "--id", id, "--field", "name=Car \(id)", "--field",
                    "operatedBy=Tesla",
                    "--field", "price=1", "--field", "image=i",
                ] + control)
        }
        for id in ["1", "2", "3"] { #expect(try publish("cars", id).process.terminationStatus == 0) }
        let refused = try publish("cars", "4")
        #expect(refused.process.terminationStatus != 0)
        #expect(refused.stderr.contains("limit_exceeded"), "\(refused.stderr)")
        #expect(refused.stderr.contains("limits.max_items_per_feed"), "\(refused.stderr)")
        #expect(try publish("bikes", "1").process.terminationStatus == 0)
        let noFeed = try publish("boats", "1")
        #expect(noFeed.stderr.contains("limits.max_feeds"), "\(noFeed.stderr)")

        let status = try JSONParser.parse(CommandRunner.run(["status", "--json"] + control).stdout)
        #expect(status["limits"]?["max_items_per_feed"] == 3)
        #expect(status["limits"]?["max_feeds"] == 2)
        #expect(status["limits"]?["max_stored_bytes"] == 805_306_368)
        #expect(status["feedCount"] == 2)
        #expect((status["storedBytes"]?.numberValue ?? 0) > 0)

        try ServiceEndToEndTests.write("limits:\n  max_items_per_feed: 5\n  max_feeds: 2\n", to: config)
        let reload = try CommandRunner.run(["reload"] + control)
        #expect(reload.process.terminationStatus == 0, "\(reload.stderr)")
        #expect(try publish("cars", "4").process.terminationStatus == 0)
        let snapshot = try JSONParser.parse(
            CommandRunner.run(["snapshot", "--feed", "cars", "--json"] + control).stdout)
        #expect(snapshot["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.count == 4)
    }

    @Test(
        "a feed forty times the message limit: rowcast snapshot and a replica get it in parts; status of many feeds comes in pages the CLI follows"
    )
    func bigReplies() throws {
        let daemon = try DaemonProcess(
            plugins: ["librowcast-product.so"], extraArguments: ["--max-message-bytes", "4096"])
        let control = ["--control", daemon.control]
        let publishing = control + ["--ingest", daemon.ingest]
        let subscribing = control + ["--publish", daemon.publish]
        func line(_ feed: String, _ id: Int) -> String {
            let item: JSONValue = [
                "op": "upsert", "feed": .string(feed),
                "item": [
                    "id": .string("\(id)"), "type": "product", "section": .string("s\(id % 3)"),
                    "data": [
                        "name": .string("Car \(id)"), "operatedBy": "Tesla", "price": .number(Double(id)),
                        "image": .string("https://img/\(id).png"),
                    ],
                ],
            ]
            return item.description
        }
        let cars = (0..<600).map { line("cars", $0) }.joined(separator: "\n") + "\n"
        #expect(
            try CommandRunner.run(["publish", "--file", "-"] + publishing, input: cars).process.terminationStatus == 0)
        let whole = try RawPeer(daemon).request(["op": "snapshot", "feed": "cars"])
        #expect(whole["error"]?["code"] == "limit_exceeded")

        let snapshot = try CommandRunner.run(["snapshot", "--feed", "cars", "--state"] + control)
        #expect(snapshot.process.terminationStatus == 0, "\(snapshot.stderr)")
        #expect(snapshot.stdout.utf8.count > 30 * 4096)
        let state = try JSONParser.parse(snapshot.stdout)
        #expect(state["sections"]?.arrayValue?.map { $0["rows"]?.arrayValue?.count ?? 0 } == [200, 200, 200])

        // A late joiner's replica loads the same state in parts, then follows one more change.
        let seq = Int(try #require(state["seq"]?.numberValue))
        let subscriber = try CommandRunner(
            ["subscribe", "--feed", "cars", "--replica", "--final", "--until-seq", "\(seq + 1)", "--timeout", "30"]
                + subscribing)
        #expect(subscriber.waitForStandardError(containing: "following feed cars"))
        #expect(
            try CommandRunner.run(["publish", "--feed", "cars", "--delete", "--id", "5"] + publishing).process
                .terminationStatus == 0)
        #expect(subscriber.wait() == 0, "subscriber: \(subscriber.stderr)")
        let after = try CommandRunner.run(["snapshot", "--feed", "cars", "--state"] + control).stdout
            .trimmingCharacters(in: .newlines)
        let replicaFinal = subscriber.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            replicaFinal == after,
            "the replica (\(replicaFinal.utf8.count) bytes) differs from the snapshot (\(after.utf8.count) bytes)")

        let feeds = (0..<150).map { line("feed-\($0)", 1) }.joined(separator: "\n") + "\n"
        #expect(
            try CommandRunner.run(["publish", "--file", "-"] + publishing, input: feeds).process.terminationStatus == 0)
        let page = try RawPeer(daemon).request(["op": "status"])
        #expect(page["more"] == true)
        let status = try JSONParser.parse(CommandRunner.run(["status", "--json"] + control).stdout)
        #expect(status["feeds"]?.arrayValue?.count == 151)
        #expect(status["feedCount"] == 151)
        #expect(status["more"] == nil)
    }
}
