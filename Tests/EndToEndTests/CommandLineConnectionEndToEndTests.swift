import Foundation
import RowCastJSON
import Testing
import ZeroMQ

/// `rowcast` against real daemons (or none): a daemon that is not listening or refuses the
/// CURVE handshake is reported at once, endpoints from the environment, negative numbers,
/// a snapshot of a missing feed, and tables that fit the terminal.
@Suite(.serialized)
struct CommandLineConnectionEndToEndTests {
    /// Runs `rowcast arguments` (at most 20 s); the run and how long it took.
    static func timed(
        _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (run: CommandRunner, status: Int32, seconds: Double) {
        let start = ContinuousClock.now
        let run = try CommandRunner(arguments, environment: environment)
        let status = run.wait(timeout: 20)
        return (run, status, (ContinuousClock.now - start) / .seconds(1))
    }

    static let product = [
        "--field", "name=Model 3", "--field", "operatedBy=Tesla", "--field", "price=39999", "--field",
        "image=https://img/p.png",
    ]

    @Test(
        "a tcp endpoint with nothing listening is reported well before the 5 s timeout, naming the endpoint and what to check"
    )
    func notListening() throws {
        let endpoint = "tcp://127.0.0.1:\(try FreePorts.take(1)[0])"
        for command in [["status"], ["snapshot", "--feed", "cars"], ["plugins"]] {
            let (run, status, seconds) = try Self.timed(command + ["--control", endpoint, "--timeout", "5"])
            #expect(status == 1, "\(command): \(run.stderr)")
            #expect(seconds < 3, "\(command) took \(seconds) s to report a daemon that is not there")
            #expect(run.stderr.hasPrefix("error: not_listening: nothing is listening at \(endpoint)"), "\(run.stderr)")
            #expect(run.stderr.contains("is rowcastd running, and is the host and port right?"))
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test("publish (acked) and subscribe --replica report a daemon that is not listening at once too")
    func notListeningPublishAndReplica() throws {
        let ports = try FreePorts.take(2)
        let control = "tcp://127.0.0.1:\(ports[0])"
        let publish = try Self.timed(
            ["publish", "--feed", "cars", "--type", "product", "--id", "1", "--control", control] + Self.product)
        #expect(publish.status == 1)
        #expect(publish.seconds < 3, "publish took \(publish.seconds) s")
        #expect(
            publish.run.stderr.hasPrefix("error: not_listening: nothing is listening at \(control)"),
            "\(publish.run.stderr)")

        let replica = try Self.timed([
            "subscribe", "--feed", "cars", "--replica", "--control", control, "--publish",
            "tcp://127.0.0.1:\(ports[1])",
        ])
        #expect(replica.status == 1)
        #expect(replica.seconds < 3, "subscribe --replica took \(replica.seconds) s")
        #expect(
            replica.run.stderr.hasPrefix("error: not_listening: nothing is listening at \(control)"),
            "\(replica.run.stderr)")
    }

    @Test("a CURVE daemon that refuses the client's key, or a client without CURVE, is reported at once")
    func handshakeRefused() throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        _ = try CurveEndToEndTests.client("alice", in: clients)
        let daemon = try CurveEndToEndTests.daemon(clients: clients)
        let work = try TemporaryDirectory("rowcast-keys")
        let mallory = try Curve.keyPair()
        let keyFile = work.path + "/mallory.key"
        try "public-key = \"\(mallory.publicKey)\"\nsecret-key = \"\(mallory.secretKey)\"\n".write(
            toFile: keyFile, atomically: true, encoding: .utf8)
        let serverPub = daemon.stateDirectory.path + "/curve/server.pub"

        let refused = try Self.timed([
            "status", "--control", daemon.control, "--server-key", serverPub, "--key", keyFile,
        ])
        #expect(refused.status == 1)
        #expect(refused.seconds < 3, "the refusal took \(refused.seconds) s")
        #expect(
            refused.run.stderr.hasPrefix(
                "error: handshake_failed: connecting to \(daemon.control): rowcastd refused this client's CURVE key"),
            "\(refused.run.stderr)")

        let plain = try Self.timed(["status", "--control", daemon.control])
        #expect(plain.status == 1)
        #expect(plain.seconds < 3, "the refusal took \(plain.seconds) s")
        #expect(
            plain.run.stderr.hasPrefix(
                "error: handshake_failed: connecting to \(daemon.control): the handshake failed"), "\(plain.run.stderr)"
        )
        #expect(plain.run.stderr.contains("--server-key"))
    }

    @Test("ROWCAST_CONTROL, ROWCAST_PUBLISH and ROWCAST_INGEST stand in for the flags; a flag wins over its variable")
    func endpointsFromEnvironment() throws {
        let daemon = try DaemonProcess()
        let environment = [
            "ROWCAST_CONTROL": daemon.control, "ROWCAST_PUBLISH": daemon.publish, "ROWCAST_INGEST": daemon.ingest,
        ]
        let subscriber = try CommandRunner(
            ["subscribe", "--feed", "cars", "--replica", "--until-seq", "1", "--final", "--timeout", "30"],
            environment: environment)
        #expect(subscriber.waitForStandardError(containing: "following feed cars"), "\(subscriber.stderr)")
        let push = try CommandRunner(
            ["publish", "--feed", "cars", "--type", "product", "--id", "1", "--no-ack"] + Self.product,
            environment: environment)
        #expect(push.wait() == 0, "\(push.stderr)")
        #expect(push.stderr.contains("queued 1 request(s) for \(daemon.ingest)"))
        #expect(subscriber.wait() == 0, "\(subscriber.stderr)")
        #expect(try JSONParser.parse(subscriber.stdout)["seq"] == 1)

        let nowhere = "tcp://127.0.0.1:\(try FreePorts.take(1)[0])"
        let flagWins = try CommandRunner(
            ["status", "--json", "--control", daemon.control], environment: ["ROWCAST_CONTROL": nowhere])
        #expect(flagWins.wait() == 0, "\(flagWins.stderr)")
        let variableUsed = try CommandRunner(["status"], environment: ["ROWCAST_CONTROL": nowhere])
        #expect(variableUsed.wait() == 1)
        #expect(variableUsed.stderr.contains(nowhere))
    }

    @Test("--sort and --order take negative values as separate words")
    func negativeNumbers() throws {
        let daemon = try DaemonProcess()
        let control = ["--control", daemon.control]
        for arguments in [
            ["publish", "--feed", "cars", "--type", "product", "--id", "a", "--sort", "1"] + Self.product,
            ["publish", "--feed", "cars", "--type", "product", "--id", "b", "--sort", "-1"] + Self.product,
            ["publish", "--feed", "cars", "--type", "product", "--id", "c", "--sort", "-0.5", "--section", "ads"]
                + Self.product,
            ["publish", "--feed", "cars", "--declare-section", "--section", "ads", "--order", "-2"],
        ] {
            let run = try CommandRunner.run(arguments + control)
            #expect(run.process.terminationStatus == 0, "\(arguments): \(run.stderr)")
        }
        let snapshot = try JSONParser.parse(
            try CommandRunner.run(["snapshot", "--feed", "cars", "--json"] + control).stdout)
        let sections = try #require(snapshot["sections"]?.arrayValue)
        #expect(sections.map { $0["id"] } == ["ads", "default"])
        #expect(sections.first?["order"]?.numberValue == -2)
        #expect(sections.last?["rows"]?.arrayValue?.map { $0["id"] } == ["b", "a"])
    }

    @Test("a snapshot of a feed that does not exist fails with not_found, unless --allow-missing")
    func missingFeed() throws {
        let daemon = try DaemonProcess()
        let missing = try CommandRunner.run(["snapshot", "--feed", "carz", "--control", daemon.control])
        #expect(missing.process.terminationStatus == 1)
        #expect(
            missing.stderr.hasPrefix("error: not_found: feed carz does not exist on rowcastd at \(daemon.control)"),
            "\(missing.stderr)")
        #expect(missing.stdout.isEmpty)
        for format in [[], ["--json"], ["--state"]] {
            let allowed = try CommandRunner.run(
                ["snapshot", "--feed", "carz", "--allow-missing", "--control", daemon.control] + format)
            #expect(allowed.process.terminationStatus == 0, "\(format): \(allowed.stderr)")
        }
        let table = try CommandRunner.run([
            "snapshot", "--feed", "carz", "--allow-missing", "--control", daemon.control,
        ])
        #expect(table.stdout.contains("(the feed does not exist yet)"))
    }

    @Test("status and snapshot tables fit COLUMNS and group thousands")
    func tablesFitTheWidth() throws {
        let daemon = try DaemonProcess()
        let items = (0..<1000).map { index -> String in
            let item: JSONValue = [
                "id": .string("item-\(index)"), "type": "product",
                "data": [
                    "name": .string("A product with a long name that would not fit a narrow terminal, number \(index)"),
                    "operatedBy": "Tesla", "price": 1, "image": "https://img/p.png",
                ],
            ]
            return item.description
        }
        let load = try CommandRunner(
            ["publish", "--feed", "a-feed-with-a-long-name", "--file", "-", "--control", daemon.control],
            input: items.joined(separator: "\n") + "\n")
        #expect(load.wait(timeout: 60) == 0, "\(load.stderr)")

        let status = try CommandRunner(["status", "--control", daemon.control], environment: ["COLUMNS": "60"])
        #expect(status.wait() == 0, "\(status.stderr)")
        let table = status.stdout.split(separator: "\n").drop { !$0.hasPrefix("FEED") }
        #expect(table.count == 2, "\(status.stdout)")
        #expect(table.allSatisfy { $0.count <= 60 }, "\(table)")
        #expect(table.last?.contains("1,000") == true, "\(table)")
        #expect(status.stdout.contains("received=1,0"), "\(status.stdout)")

        let snapshot = try CommandRunner(
            ["snapshot", "--feed", "a-feed-with-a-long-name", "--control", daemon.control],
            environment: ["COLUMNS": "50"])
        #expect(snapshot.wait() == 0, "\(snapshot.stderr)")
        let lines = snapshot.stdout.split(separator: "\n")
        #expect(lines.first?.contains("1,000 rows") == true, "\(lines.first ?? "")")
        let rows = lines.filter { $0.hasPrefix("  ") }
        #expect(rows.count == 1001)
        #expect(rows.allSatisfy { $0.count <= 50 }, "\(rows.prefix(3))")
        #expect(rows.dropFirst().allSatisfy { $0.hasSuffix("…") })

        // Without COLUMNS (empty counts as unset), output to a file is not cut to any width.
        let wide = try CommandRunner(
            ["snapshot", "--feed", "a-feed-with-a-long-name", "--control", daemon.control], environment: ["COLUMNS": ""]
        )
        #expect(wide.wait() == 0)
        #expect(wide.stdout.split(separator: "\n").contains { $0.count > 80 })
    }
}
