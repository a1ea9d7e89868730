import Foundation
import RowCastJSON
import Testing

/// Relays across network namespaces, as across machines: rowcastd in one namespace, two relays
/// in two more (each joined to rowcastd's by a veth pair), and replicas (`rowcast subscribe
/// --replica`) in a namespace behind each relay, reaching only their relay. Items are
/// published while one relay is restarted; every replica must end byte for byte equal to
/// rowcastd's snapshot.
///
/// ```
///        s1 (2 replicas) --10.77.3.0/24-- r1 --10.77.1.0/24--+
///                                                             d (rowcastd)
///        s2 (2 replicas) --10.77.4.0/24-- r2 --10.77.2.0/24--+
/// ```
@Suite(.serialized, .timeLimit(.minutes(3)))
struct RelayNamespaceEndToEndTests {
    /// NDJSON product items `ids`, with `name`.
    static func items(_ ids: some Sequence<Int>, name: String = "Tesla Model 3") -> String {
        ids.map { id in
            let item: JSONValue = [
                "id": .string("\(id)"), "type": "product", "section": .string(id % 3 == 0 ? "used" : "new"),
                "data": [
                    "name": .string(name), "operatedBy": "Tesla", "price": .number(Double(30000 + id)),
                    "image": "https://img/x.png",
                ],
            ]
            return String(decoding: item.serialized(), as: UTF8.self)
        }.joined(separator: "\n") + "\n"
    }

    /// Publishes `input` (NDJSON requests) from rowcastd's namespace, acked one by one.
    static func publish(_ input: String, in spaces: NetworkNamespaces) throws -> CommandRunner {
        try CommandRunner(
            [
                "publish", "--feed", "cars", "--file", "-", "--window", "1", "--control", "tcp://127.0.0.1:7702",
                "--timeout", "20",
            ],
            input: input, launcher: try spaces.launcher("d"))
    }

    @Test(
        "replicas behind two relays in their own network namespaces end equal to rowcastd's snapshot, though one relay restarts while items are published",
        .enabled(
            if: NetworkNamespaces.available,
            "network namespaces cannot be made here: needs the ip command (iproute2) and root or CAP_NET_ADMIN"))
    func replicasAcrossNamespaces() throws {
        let spaces = try NetworkNamespaces()
        defer { spaces.removeAll() }
        for role in ["d", "r1", "r2", "s1", "s2"] { try spaces.add(role) }
        try spaces.link(("d", "to-r1", "10.77.1.1/24"), ("r1", "north", "10.77.1.2/24"))
        try spaces.link(("d", "to-r2", "10.77.2.1/24"), ("r2", "north", "10.77.2.2/24"))
        try spaces.link(("r1", "south", "10.77.3.1/24"), ("s1", "north", "10.77.3.2/24"))
        try spaces.link(("r2", "south", "10.77.4.1/24"), ("s2", "north", "10.77.4.2/24"))

        // rowcastd listens on every interface of its namespace (the relays' links and loopback).
        let daemon = try DaemonProcess(
            endpoints: ("tcp://127.0.0.1:7701", "tcp://0.0.0.0:7702", "tcp://0.0.0.0:7703"),
            extraArguments: ["--allow-insecure-tcp"], launcher: try spaces.launcher("d"))
        defer { daemon.stop() }

        func startRelay(_ role: String, upstream: String, down: String) throws -> RelayProcess {
            try RelayProcess(
                upstreamPublish: "tcp://\(upstream):7703", upstreamControl: "tcp://\(upstream):7702",
                publish: "tcp://\(down):7703", control: "tcp://\(down):7702", launcher: try spaces.launcher(role))
        }
        var relay1 = try startRelay("r1", upstream: "10.77.1.1", down: "10.77.3.1")
        let relay2 = try startRelay("r2", upstream: "10.77.2.1", down: "10.77.4.1")
        defer {
            relay1.stop()
            relay2.stop()
        }

        // Something to load first, then four replicas, two behind each relay.
        #expect(try Self.publish(Self.items(0..<20), in: spaces).wait(timeout: 60) == 0)
        var replicas: [(role: String, command: CommandRunner)] = []
        defer {
            for replica in replicas where replica.command.process.isRunning { replica.command.process.terminate() }
        }
        for (role, relayAddress) in [
            ("s1", "10.77.3.1"), ("s1", "10.77.3.1"), ("s2", "10.77.4.1"), ("s2", "10.77.4.1"),
        ] {
            let command = try CommandRunner(
                [
                    "subscribe", "--feed", "cars", "--replica", "--timeout", "30", "--publish",
                    "tcp://\(relayAddress):7703", "--control", "tcp://\(relayAddress):7702",
                ],
                launcher: try spaces.launcher(role))
            replicas.append((role, command))
        }
        for replica in replicas {
            #expect(
                replica.command.waitForStandardError(containing: "following feed cars", timeout: 30),
                "\(replica.role): \(replica.command.stderr)")
        }

        // Publish while relay 1 stops, while it is gone, and while it starts again: its
        // replicas miss deltas and catch up.
        let whileStopping = try Self.publish(Self.items(20..<40), in: spaces)
        #expect(relay1.stop() == 0, "relay 1 did not stop cleanly: \(relay1.command.stderr)")
        #expect(
            try Self.publish(Self.items(40..<60) + Self.items(0..<10, name: "changed"), in: spaces).wait(timeout: 60)
                == 0)
        let whileStarting = try Self.publish(
            (10..<15).map { #"{"op":"delete","id":"\#($0)"}"# }.joined(separator: "\n") + "\n" + Self.items(60..<70),
            in: spaces)
        relay1 = try startRelay("r1", upstream: "10.77.1.1", down: "10.77.3.1")
        #expect(whileStopping.wait(timeout: 60) == 0, "\(whileStopping.stderr)")
        #expect(whileStarting.wait(timeout: 60) == 0, "\(whileStarting.stderr)")
        #expect(
            try Self.publish(Self.items(70..<75) + #"{"op":"delete_section","id":"used"}"# + "\n", in: spaces).wait(
                timeout: 60) == 0)

        let state = try CommandRunner(
            ["snapshot", "--feed", "cars", "--state", "--control", "tcp://127.0.0.1:7702"],
            launcher: try spaces.launcher("d"))
        #expect(state.wait(timeout: 30) == 0, "\(state.stderr)")
        let expected = state.stdout.trimmingCharacters(in: .newlines)
        let seq = try JSONParser.parse(expected)["seq"]?.numberValue.map { Int($0) } ?? -1
        #expect(seq > 20)

        for replica in replicas {
            let deadline = Date().addingTimeInterval(30)
            var last = ""
            while Date() < deadline, replica.command.process.isRunning {
                last = replica.command.stdout.split(separator: "\n").last.map(String.init) ?? ""
                if last == expected { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            #expect(
                last == expected,
                "\(replica.role): replica ended at \(last.prefix(120)) (expected seq \(seq)); stderr:\n\(replica.command.stderr)"
            )
            #expect(
                replica.command.process.isRunning, "\(replica.role): the replica stopped: \(replica.command.stderr)")
        }
        // The replicas behind the restarted relay missed deltas and say they caught up.
        let caughtUp = replicas.filter { $0.role == "s1" }.allSatisfy {
            $0.command.stderr.contains("resynced feed cars")
        }
        #expect(caughtUp, "\(replicas.map(\.command.stderr))")
    }
}
