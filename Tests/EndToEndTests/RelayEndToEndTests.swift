import Foundation
import RowCastClient
import RowCastKit
import Testing

/// `rowcast relay` in front of a real rowcastd: a replica pointed at the relay behaves as one
/// pointed at rowcastd, writes are refused, and the command's help and errors say what to do.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RelayEndToEndTests {
    /// The daemon's state of `feed` in the replica's shape, for exact comparison.
    static func daemonState(_ daemon: DaemonProcess, feed: String) throws -> JSONValue {
        let control = try ControlClient(endpoint: daemon.control, timeout: .seconds(10))
        defer { control.close() }
        return try FeedReplica(snapshot: try control.snapshot(feed: feed)).snapshotJSON
    }

    /// The `seq` of an ack.
    static func seq(_ reply: JSONValue) throws -> Int {
        guard let seq = reply["seq"]?.numberValue else { throw TestFailure("no seq in \(reply)") }
        return Int(seq)
    }

    /// Applies `session`'s events until its replica reaches `seq`, within `seconds`.
    static func follow(_ session: ReplicaSession, to seq: Int, seconds: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while (session.replica?.seq ?? -1) < seq {
            guard Date() < deadline else { throw TestFailure("replica at seq \(session.replica?.seq ?? -1), not \(seq), after \(seconds) s") }
            _ = try session.next(timeout: .milliseconds(200))
        }
    }

    @Test("a ReplicaSession through a relay: snapshot (in parts), deltas, a gap resumed with since, and it ends equal to rowcastd's snapshot")
    func replicaThroughRelay() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let relay = try RelayProcess(upstreamPublish: daemon.publish, upstreamControl: daemon.control)
        defer { relay.stop() }
        let peer = try RawPeer(daemon)
        for id in 0..<20 { _ = try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(id)")]) }

        let session = try ReplicaSession(feed: "cars", controlEndpoint: relay.control, publishEndpoint: relay.publish, timeout: .seconds(10))
        let loaded = try session.start()
        #expect(loaded.seq == 20)
        var last = 0
        for id in 20..<30 { last = try Self.seq(peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(id)")])) }
        try Self.follow(session, to: last)

        // A delta taken off the socket behind the session's back is a gap, resumed through
        // the relay with since.
        last = try Self.seq(peer.request(["op": "delete", "feed": "cars", "id": "3"]))
        let deadline = Date().addingTimeInterval(10)
        var lost = false
        while !lost, Date() < deadline {
            if let message = try session.subscriber.receive(timeout: .milliseconds(200)), message.body["event"] == "delta" { lost = true }
        }
        #expect(lost)
        last = try Self.seq(peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("99", name: "changed")]))
        try Self.follow(session, to: last)
        #expect(session.resumeCount >= 1)
        #expect(session.replica?.snapshotJSON == (try Self.daemonState(daemon, feed: "cars")))
        // Only the relay's own DEALER and the test's peer talked to the daemon's control socket.
        #expect(relay.command.process.isRunning)
    }

    @Test("a write sent to a relay is refused with read_only, echoing req, and changes nothing")
    func writesRefused() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let relay = try RelayProcess(upstreamPublish: daemon.publish, upstreamControl: daemon.control)
        defer { relay.stop() }
        let control = try ControlClient(endpoint: relay.control, timeout: .seconds(10))
        defer { control.close() }
        do {
            _ = try control.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1"), "req": 41])
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
        for id in 0..<5 { last = try Self.seq(peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(id)")])) }
        let subscribe = try CommandRunner(["subscribe", "--feed", "cars", "--replica", "--final", "--until-seq", "\(last + 2)", "--timeout", "20",
                                           "--publish", relay.publish, "--control", relay.control])
        #expect(subscribe.waitForStandardError(containing: "following feed cars"), "\(subscribe.stderr)")
        _ = try peer.request(["op": "delete", "feed": "cars", "id": "1"])
        _ = try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("7")])
        #expect(subscribe.wait(timeout: 30) == 0, "\(subscribe.stderr)")
        let state = try CommandRunner.run(["snapshot", "--feed", "cars", "--state", "--control", daemon.control])
        #expect(subscribe.stdout == state.stdout)
    }

    @Test("SIGTERM stops a relay cleanly (exit status 0) with a summary; SIGINT too")
    func signals() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        for number in [SIGTERM, SIGINT] {
            let relay = try RelayProcess(upstreamPublish: daemon.publish, upstreamControl: daemon.control)
            _ = try ControlClient(endpoint: relay.control, timeout: .seconds(10)).request(["op": "status"])
            kill(relay.command.process.processIdentifier, number)
            #expect(relay.command.wait(timeout: 10) == 0, "\(relay.command.stderr)")
            #expect(relay.command.stderr.contains("relay stopped: 1 requests forwarded, 0 refused"), "\(relay.command.stderr)")
        }
    }

    @Test("rowcast relay --help explains the topology and what is forwarded and refused")
    func help() throws {
        let run = try CommandRunner.run(["relay", "--help"])
        #expect(run.process.terminationStatus == 0)
        for text in ["--upstream-publish <endpoint>", "--upstream-control <endpoint>", "--publish <endpoint>", "--control <endpoint>",
                     "--server-key <key-or-file>", "--key <file>", "XSUB", "XPUB", "read_only", "snapshot", "since", "one relay per region"] {
            #expect(run.stdout.contains(text), "--help lacks \(text):\n\(run.stdout)")
        }
    }

    @Test("bad endpoints are refused before anything starts, naming the option", arguments: [
        (["--upstream-publish", "127.0.0.1:7703"], "--upstream-publish: must be a ZeroMQ endpoint"),
        (["--upstream-control", "tcp://*:7702"], "--upstream-control: tcp://*:7702 has a wildcard"),
        (["--publish", "udp://x"], "--publish: must be a ZeroMQ endpoint"),
    ])
    func badEndpoints(_ override: [String], _ message: String) throws {
        var options = ["--upstream-publish": "tcp://127.0.0.1:7703", "--upstream-control": "tcp://127.0.0.1:7702",
                       "--publish": "tcp://127.0.0.1:*", "--control": "tcp://127.0.0.1:*"]
        options[override[0]] = override[1]
        let run = try CommandRunner.run(["relay"] + options.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] })
        #expect(run.process.terminationStatus == 64, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test("an endpoint that cannot be bound is one line naming it, exit status 1")
    func bindFailure() throws {
        let run = try CommandRunner.run(["relay", "--upstream-publish", "tcp://127.0.0.1:7703", "--upstream-control", "tcp://127.0.0.1:7702",
                                         "--publish", "tcp://192.0.2.77:7703", "--control", "tcp://127.0.0.1:*"])
        #expect(run.process.terminationStatus == 1, "\(run.stderr)")
        #expect(run.stderr.contains("error: relay_failed: rowcast relay: cannot bind its publish endpoint (XPUB) to tcp://192.0.2.77:7703"), "\(run.stderr)")
    }
}
