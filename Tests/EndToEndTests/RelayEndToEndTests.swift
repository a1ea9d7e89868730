import Foundation
import RowCastClient
import RowCastJSON
import RowCastPluginHosting
import Testing
import ZeroMQ

/// `rowcast relay` in front of a real rowcastd: a replica pointed at the relay behaves as one
/// pointed at rowcastd, writes are refused, and the command's help and errors say what to do.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RelayEndToEndTests {
    /// The daemon's state of `feed` in the replica's shape, for exact comparison.
    static func daemonState(_ daemon: DaemonProcess, feed: String) throws -> JSONValue {
        let control = try ControlClient(endpoint: daemon.control, timeout: .seconds(Int(Self.patience)))
        defer { control.close() }
        return try FeedReplica(snapshot: try control.snapshot(feed: feed)).snapshotJSON
    }

    /// The `seq` of an ack.
    static func seq(_ reply: JSONValue) throws -> Int {
        guard let seq = reply["seq"]?.numberValue else { throw TestFailure("no seq in \(reply)") }
        return Int(seq)
    }

    /// How many parts a chunked snapshot of `feed` asked of `control` came in (every part
    /// checked to carry the request's `req`).
    static func snapshotParts(_ control: String, feed: String) throws -> Int {
        let context = try Context()
        let dealer = try Socket(context: context, type: .dealer)
        defer { dealer.close() }
        try dealer.setOption(.linger, 0)
        try dealer.setOption(.receiveTimeout, 10_000)
        try dealer.connect(control)
        let request: JSONValue = ["op": "snapshot", "feed": .string(feed), "chunked": true, "req": "parts"]
        try dealer.send([[], request.serialized()])
        var parts = Int.max
        var received = 0
        while received < parts {
            guard let frames = try dealer.receiveMultipart() else {
                throw TestFailure("part \(received) of the snapshot did not come")
            }
            let reply = try JSONParser.parse(frames.last ?? [])
            #expect(reply["req"] == "parts" && reply["part"] == .number(Double(received)), "\(reply)")
            parts = Int(reply["parts"]?.numberValue ?? 0)
            received += 1
        }
        return parts
    }

    /// How long a test waits for what a relay passes on: longer under a sanitizer, where one
    /// such wait ran out on a loaded 2-core machine.
    static let patience: TimeInterval = SanitizerRuntime.isActive ? 60 : 20

    /// Applies `session`'s events until its replica reaches `seq`, within `seconds`.
    static func follow(_ session: ReplicaSession, to seq: Int, seconds: TimeInterval = patience) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while (session.replica?.seq ?? -1) < seq {
            guard Date() < deadline else {
                throw TestFailure("replica at seq \(session.replica?.seq ?? -1), not \(seq), after \(seconds) s")
            }
            _ = try session.next(timeout: .milliseconds(200))
        }
    }

    @Test(
        "a ReplicaSession through a relay: snapshot (in parts), deltas, a gap resumed with since, and it ends equal to rowcastd's snapshot"
    )
    func replicaThroughRelay() throws {
        // A small message limit, so a snapshot of 20 rows comes in several parts.
        let daemon = try DaemonProcess(extraArguments: ["--max-message-bytes", "4096"])
        defer { daemon.stop() }
        let relay = try RelayProcess(upstreamPublish: daemon.publish, upstreamControl: daemon.control)
        defer { relay.stop() }
        let peer = try RawPeer(daemon)
        for id in 0..<20 {
            _ = try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(id)")])
        }

        #expect(try Self.snapshotParts(relay.control, feed: "cars") > 1)
        let session = try ReplicaSession(
            feed: "cars", controlEndpoint: relay.control, publishEndpoint: relay.publish,
            timeout: .seconds(Int(Self.patience)))
        let loaded = try session.start()
        #expect(loaded.seq == 20)
        #expect(loaded.snapshotJSON == (try Self.daemonState(daemon, feed: "cars")))
        var last = 0
        for id in 20..<30 {
            last = try Self.seq(
                peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(id)")]))
        }
        try Self.follow(session, to: last)

        // A delta taken off the socket behind the session's back is a gap, resumed through
        // the relay with since.
        last = try Self.seq(peer.request(["op": "delete", "feed": "cars", "id": "3"]))
        let deadline = Date().addingTimeInterval(Self.patience)
        var lost = false
        while !lost, Date() < deadline {
            if let message = try session.subscriber.receive(timeout: .milliseconds(200)),
                message.body["event"] == "delta"
            {
                lost = true
            }
        }
        #expect(lost)
        last = try Self.seq(
            peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("99", name: "changed")]))
        try Self.follow(session, to: last)
        #expect(session.resumeCount >= 1)
        #expect(session.replica?.snapshotJSON == (try Self.daemonState(daemon, feed: "cars")))
        // Only the relay's own DEALER and the test's peer talked to the daemon's control socket.
        #expect(relay.command.process.isRunning)
    }

    @Test(
        "rowcastd restarting behind a relay (a standby taking over its address and state): the relay reconnects by itself and the replica continues"
    )
    func daemonRestartBehindRelay() throws {
        let endpoints = try FreePorts.endpoints()
        let plugins = try DaemonProcess.pluginDirectory()
        let state = try TemporaryDirectory("rowcast-state")
        var daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state, endpoints: endpoints)
        defer { daemon.stop() }
        let relay = try RelayProcess(upstreamPublish: endpoints.2, upstreamControl: endpoints.1)
        defer { relay.stop() }
        for id in 0..<3 {
            _ = try RawPeer(daemon).request([
                "op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(id)"),
            ])
        }
        let session = try ReplicaSession(
            feed: "cars", controlEndpoint: relay.control, publishEndpoint: relay.publish,
            timeout: .seconds(Int(Self.patience)))
        #expect(try session.start().seq == 3)

        daemon.stop()
        daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state, endpoints: endpoints)
        let last = try Self.seq(
            RawPeer(daemon).request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("3")]))
        try Self.follow(session, to: last, seconds: 1.5 * Self.patience)
        #expect(session.replica?.snapshotJSON == (try Self.daemonState(daemon, feed: "cars")))
        #expect(relay.command.process.isRunning)
    }

    @Test("a write sent to a relay is refused with read_only, echoing req, and changes nothing")
    func writesRefused() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let relay = try RelayProcess(upstreamPublish: daemon.publish, upstreamControl: daemon.control)
        defer { relay.stop() }
        let control = try ControlClient(endpoint: relay.control, timeout: .seconds(Int(Self.patience)))
        defer { control.close() }
        do {
            _ = try control.request([
                "op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1"), "req": 41,
            ])
            Issue.record("the relay took an upsert")
        } catch {
            #expect(error.code == "read_only", "\(error)")
            #expect(error.message.contains("rowcastd's own control endpoint"), "\(error)")
        }
        // Reads go through and show nothing was written.
        let status = try control.request(["op": "status"])
        #expect(status["feedCount"] == 0)
        let snapshot = try control.snapshot(feed: "cars")
        #expect(snapshot["seq"] == 0)
    }

    @Test("rowcast subscribe --replica pointed at a relay prints what rowcast snapshot --state prints at rowcastd")
    func subscribeReplicaThroughRelay() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let relay = try RelayProcess(upstreamPublish: daemon.publish, upstreamControl: daemon.control)
        defer { relay.stop() }
        let peer = try RawPeer(daemon)
        var last = 0
        for id in 0..<5 {
            last = try Self.seq(
                peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(id)")]))
        }
        let subscribe = try CommandRunner([
            "subscribe", "--feed", "cars", "--replica", "--final", "--until-seq", "\(last + 2)", "--timeout", "20",
            "--publish", relay.publish, "--control", relay.control,
        ])
        #expect(subscribe.waitForStandardError(containing: "following feed cars"), "\(subscribe.stderr)")
        _ = try peer.request(["op": "delete", "feed": "cars", "id": "1"])
        _ = try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("7")])
        #expect(subscribe.wait(timeout: 30) == 0, "\(subscribe.stderr)")
        let state = try CommandRunner.run(["snapshot", "--feed", "cars", "--state", "--control", daemon.control])
        #expect(subscribe.stdout == state.stdout)
    }

    @Test(
        "a relay connects upstream with CURVE and its own key: replicas behind it read what that key may read, and nothing else",
        .enabled(if: Curve.isAvailable, "this libzmq has no CURVE"))
    func curveUpstream() throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let producer = try CurveEndToEndTests.client("producer", in: clients)
        let relayKeys = try CurveEndToEndTests.client("relay", in: clients, allow: ["read cars*"])
        let daemon = try CurveEndToEndTests.daemon(clients: clients)
        defer { daemon.stop() }
        let keys = try TemporaryDirectory("rowcast-relay-key")
        let keyFile = keys.path + "/relay.key"
        try "public-key = \"\(relayKeys.publicKey)\"\nsecret-key = \"\(relayKeys.secretKey)\"\n".write(
            toFile: keyFile, atomically: true, encoding: .utf8)
        defer { keys.remove() }
        let relay = try RelayProcess(
            upstreamPublish: daemon.publish, upstreamControl: daemon.control,
            extra: ["--server-key", try CurveEndToEndTests.serverKey(daemon), "--key", keyFile])
        defer { relay.stop() }

        let peer = try RawPeer(daemon, curve: try CurveEndToEndTests.keys(daemon, producer))
        _ = try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1")])
        _ = try peer.request(["op": "upsert", "feed": "payroll", "item": DaemonEndToEndTests.product("p")])
        // The replica itself connects without CURVE: the relay's downstream side is plain.
        let session = try ReplicaSession(
            feed: "cars", controlEndpoint: relay.control, publishEndpoint: relay.publish,
            timeout: .seconds(Int(Self.patience)))
        #expect(try session.start().seq == 1)
        let last = try Self.seq(
            peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("2")]))
        try Self.follow(session, to: last)
        #expect(session.replica?.snapshotJSON["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.count == 2)

        // rowcastd checks the relay's key: a feed it may not read is forbidden through it.
        let control = try ControlClient(endpoint: relay.control, timeout: .seconds(Int(Self.patience)))
        defer { control.close() }
        do {
            _ = try control.snapshot(feed: "payroll")
            Issue.record("the relay read a feed its key may not read")
        } catch {
            #expect(error.code == "forbidden", "\(error)")
        }
    }

    @Test("SIGTERM stops a relay cleanly (exit status 0) with a summary; SIGINT too")
    func signals() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        for number in [SIGTERM, SIGINT] {
            let relay = try RelayProcess(upstreamPublish: daemon.publish, upstreamControl: daemon.control)
            _ = try ControlClient(endpoint: relay.control, timeout: .seconds(Int(Self.patience))).request([
                "op": "status"
            ])
            kill(relay.command.process.processIdentifier, number)
            #expect(relay.command.wait(timeout: 10) == 0, "\(relay.command.stderr)")
            #expect(
                relay.command.stderr.contains("relay stopped: 1 requests forwarded, 0 refused"),
                "\(relay.command.stderr)")
        }
    }

    @Test("rowcast relay --help explains the topology and what is forwarded and refused")
    func help() throws {
        let run = try CommandRunner.run(["relay", "--help"])
        #expect(run.process.terminationStatus == 0)
        for text in [
            "--upstream-publish <endpoint>", "--upstream-control <endpoint>", "--publish <endpoint>",
            "--control <endpoint>",
            "--server-key <key-or-file>", "--key <file>", "--queue <count>", "--high-water-mark <count>", "XSUB",
            "XPUB", "read_only", "snapshot", "since", "one relay per region",
        ] {
            #expect(run.stdout.contains(text), "--help lacks \(text):\n\(run.stdout)")
        }
    }

    @Test(
        "bad endpoints are refused before anything starts, naming the option",
        arguments: [
            (["--upstream-publish", "127.0.0.1:7703"], "--upstream-publish: must be a ZeroMQ endpoint"),
            (["--upstream-control", "tcp://*:7702"], "--upstream-control: tcp://*:7702 has a wildcard"),
            (["--publish", "udp://x"], "--publish: must be a ZeroMQ endpoint"),
        ])
    func badEndpoints(_ override: [String], _ message: String) throws {
        var options = [
            "--upstream-publish": "tcp://127.0.0.1:7703", "--upstream-control": "tcp://127.0.0.1:7702",
            "--publish": "tcp://127.0.0.1:*", "--control": "tcp://127.0.0.1:*",
        ]
        options[override[0]] = override[1]
        let run = try CommandRunner.run(["relay"] + options.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] })
        #expect(run.process.terminationStatus == 64, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test("an upstream endpoint libzmq cannot connect to is one line naming it, exit status 1")
    func connectFailure() throws {
        let run = try CommandRunner.run([
            "relay", "--upstream-publish", "tcp://127.0.0.1:notaport", "--upstream-control", "tcp://127.0.0.1:7702",
            "--publish", "tcp://127.0.0.1:*", "--control", "tcp://127.0.0.1:*",
        ])
        #expect(run.process.terminationStatus == 1, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "error: relay_failed: rowcast relay: cannot connect its XSUB to rowcastd's publish endpoint tcp://127.0.0.1:notaport: Invalid argument"
            ), "\(run.stderr)")
    }

    @Test("an endpoint that cannot be bound is one line naming it, exit status 1")
    func bindFailure() throws {
        let run = try CommandRunner.run([
            "relay", "--upstream-publish", "tcp://127.0.0.1:7703", "--upstream-control", "tcp://127.0.0.1:7702",
            "--publish", "tcp://192.0.2.77:7703", "--control", "tcp://127.0.0.1:*",
        ])
        #expect(run.process.terminationStatus == 1, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "error: relay_failed: rowcast relay: cannot bind its publish endpoint (XPUB) to tcp://192.0.2.77:7703"),
            "\(run.stderr)")
    }
}
