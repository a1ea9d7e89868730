import RowCastClient
import RowCastJSON
import Testing

/// The `rowcast` executable against a fake daemon: arguments, output lines, exit statuses.
@Suite struct CommandLineTests {
    typealias F = Fixture

    /// `--control` (and the `other` socket's flag: each subcommand takes only the endpoints it
    /// uses) and a timeout.
    static func endpoints(_ daemon: FakeDaemon, _ other: String? = nil) -> [String] {
        var flags = ["--control", daemon.control, "--timeout", "10"]
        if other == "publish" { flags += ["--publish", daemon.publish] }
        if other == "ingest" { flags += ["--ingest", daemon.ingest] }
        return flags
    }

    @Test func badArgumentsExitWithAUsageError() throws {
        let missingFeed = try CommandLineRun.run(["publish", "--id", "1", "--type", "t"])
        #expect(missingFeed.status == 64)
        #expect(missingFeed.stderr.contains("missing --feed"))
        let deleteWithoutID = try CommandLineRun.run(["publish", "--feed", "cars", "--delete"])
        #expect(deleteWithoutID.status == 64)
        #expect(deleteWithoutID.stderr.contains("--delete needs --id"))
        let replicaWithoutFeed = try CommandLineRun.run(["subscribe", "--replica"])
        #expect(replicaWithoutFeed.status == 64)
        // A mistyped flag is reported as such, not as the flag it was meant to be.
        let mistyped = try CommandLineRun.run(["publish", "--fed", "cars", "--id", "1", "--type", "t"])
        #expect(mistyped.status == 64)
        #expect(mistyped.stderr.contains("Unknown option '--fed'"))
        #expect(!mistyped.stderr.contains("missing --feed"))
    }

    @Test func publishPrintsOneLinePerRequestAndFailsWhenOneFails() throws {
        let daemon = try FakeDaemon { request in
            if request["item"]?["id"] == nil, request["op"] == "upsert" {
                return FakeDaemon.Response(replies: [
                    [
                        "ok": false, "op": "upsert", "req": request["req"] ?? nil,
                        "error": [
                            "code": "missing_field", "message": "upsert: missing field \"item.id\"", "field": "item.id",
                        ],
                    ]
                ])
            }
            return FakeDaemon.Response(replies: [okReply(to: request, ["feed": "cars", "seq": 12, "epoch": "e"])])
        }
        defer { daemon.stop() }
        let one = try CommandLineRun.run(
            [
                "publish", "--feed", "cars", "--type", "product", "--id", "42",
                "--field", "name=Tesla", "--field", "price=39999",
            ] + Self.endpoints(daemon))
        #expect(one.status == 0)
        #expect(one.stdout == "ok cars seq=12\n")
        #expect(
            daemon.requests.first?["item"] == [
                "id": "42", "type": "product", "data": ["name": "Tesla", "price": 39999],
            ])

        let input =
            "{\"id\":\"1\",\"type\":\"t\"}\n{\"op\":\"upsert\",\"item\":{\"type\":\"t\"}}\n{\"op\":\"delete\",\"id\":\"1\"}\n"
        let file = try CommandLineRun.run(
            ["publish", "--feed", "cars", "--file", "-"] + Self.endpoints(daemon, "ingest"), input: input)
        #expect(file.status == 1)
        #expect(file.stdout == "ok cars seq=12\nok cars seq=12\n")
        #expect(file.stderr == "error: missing_field: upsert: missing field \"item.id\"\n")
    }

    @Test func timeoutIsOneLineAndExitStatusOne() throws {
        let daemon = try FakeDaemon()
        defer { daemon.stop() }
        let result = try CommandLineRun.run(["status", "--control", daemon.control, "--timeout", "0.1"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: timeout: no reply to status from rowcastd at \(daemon.control)"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func replicaSubscriptionEndsWithTheSnapshotsState() throws {
        let state = Shared(F.snapshotReply(seq: 1, sections: [F.section("A", ["a"])]))
        let daemon = try FakeDaemon { request in
            guard request["op"] == "snapshot", case .object(let members) = state.value else {
                return FakeDaemon.Response()
            }
            return FakeDaemon.Response(replies: [okReply(to: request, members)])
        }
        defer { daemon.stop() }
        let run = try CommandLineRun(
            ["subscribe", "--feed", "cars", "--replica", "--count", "2", "--heartbeats"]
                + Self.endpoints(daemon, "publish"))
        daemon.setHeartbeating(true)
        let live = eventually { run.stderr.value.contains("heartbeat event") }
        daemon.setHeartbeating(false)
        #expect(live)
        var two = DeltaBuilder(seq: 2)
        two.insertRow("b", at: (0, 0))
        var three = DeltaBuilder(seq: 3)
        three.moveRow("a", from: (0, 1), to: (0, 0))
        daemon.publish("rows.cars", two.json)
        daemon.publish("rows.cars", three.json)
        #expect(run.wait() == 0)
        let lines = run.stdout.value.split(separator: "\n").map(String.init)
        let expected = F.state(seq: 3, sections: [F.section("A", ["a", "b"])])
        #expect(lines.count == 3)
        #expect(lines.first == F.state(seq: 1, sections: [F.section("A", ["a"])]).description)
        #expect(lines.last == expected.description)
        #expect(run.stderr.value.contains("rowcast: following feed cars from seq 1"))

        // `snapshot --state` of the same state prints the same bytes.
        state.value = F.snapshotReply(seq: 3, sections: [F.section("A", ["a", "b"])])
        let snapshot = try CommandLineRun.run(["snapshot", "--feed", "cars", "--state"] + Self.endpoints(daemon))
        #expect(snapshot.stdout == expected.description + "\n")
        let json = try CommandLineRun.run(["snapshot", "--feed", "cars", "--json"] + Self.endpoints(daemon))
        #expect(try JSONParser.parse(json.stdout)["sections"] == expected["sections"])
    }
}
