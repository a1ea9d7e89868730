import Foundation
import RowCastClient
import RowCastJSON
import Testing
import ZeroMQ

/// CURVE on the TCP endpoints with the ZAP handler: only clients whose public key is in the
/// keys directory connect; keys are read again on reload.
@Suite(.serialized)
struct CurveEndToEndTests {
    /// A client key pair, with its public key installed in `clients` as NAME.key (plus `allow`).
    static func client(
        _ name: String, in clients: TemporaryDirectory?, allow: [String] = ["all *"]
    ) throws -> (publicKey: String, secretKey: String) {
        let pair = try Curve.keyPair()
        if let clients {
            let text =
                "# test client \(name)\npublic-key = \"\(pair.publicKey)\"\n"
                + allow.map { "allow = \"\($0)\"\n" }.joined()
            try text.write(toFile: clients.path + "/\(name).key", atomically: true, encoding: .utf8)
        }
        return pair
    }

    /// rowcastd with CURVE on, admitting the keys in `clients`, with `threads` engine loops.
    static func daemon(clients: TemporaryDirectory, threads: Int = 1) throws -> DaemonProcess {
        try DaemonProcess(
            extraArguments: ["--curve", "--curve-clients", clients.path, "--engine-threads", "\(threads)"])
    }

    /// The daemon's public key, from the server.pub it wrote into its state directory.
    static func serverKey(_ daemon: DaemonProcess) throws -> String {
        let text = try String(contentsOfFile: daemon.stateDirectory.path + "/curve/server.pub", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("public-key") })
        return String(line.split(separator: "\"")[1])
    }

    static func keys(_ daemon: DaemonProcess, _ pair: (publicKey: String, secretKey: String)) throws -> TestCurveKeys {
        TestCurveKeys(serverKey: try serverKey(daemon), publicKey: pair.publicKey, secretKey: pair.secretKey)
    }

    @Test("libzmq has CURVE, and a generated key pair is two 40-character Z85 keys that belong together")
    func curveAvailable() throws {
        #expect(Curve.isAvailable)
        let pair = try Curve.keyPair()
        #expect(pair.publicKey.count == 40 && pair.secretKey.count == 40)
        #expect(try Curve.publicKey(ofSecret: pair.secretKey) == pair.publicKey)
        #expect(Curve.encode(try #require(Curve.decode(pair.publicKey))) == pair.publicKey)
    }

    @Test(
        "a known key is served on every socket; an unknown key gets no reply, nothing is applied, and it is counted",
        arguments: [1, 2])
    func unknownKeyRefused(threads: Int) throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let alice = try Self.client("alice", in: clients)
        let mallory = try Self.client("mallory", in: nil)
        let daemon = try Self.daemon(clients: clients, threads: threads)

        let intruder = try RawPeer(daemon, curve: try Self.keys(daemon, mallory))
        try intruder.dealer.setOption(.receiveTimeout, 1500)
        #expect(throws: TestFailure.self) { _ = try intruder.request(["op": "reset", "feed": "cars", "items": []]) }
        let sneaky: JSONValue = ["op": "upsert", "feed": "payroll", "item": DaemonEndToEndTests.product("1")]
        _ = try intruder.push.send(sneaky.serialized(), dontWait: true)

        // A plain (NULL) client is not served either.
        let plain = ControlClientProbe.plainStatusTimesOut(daemon.control)
        #expect(plain)

        let peer = try RawPeer(daemon, curve: try Self.keys(daemon, alice))
        try peer.subscribe([Array("rows.cars".utf8) + [0]])
        let ack = try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("42")])
        #expect(ack["ok"] == true)
        #expect(try peer.delta(feed: "cars", seq: 1)["seq"] == 1)
        let status = try peer.request(["op": "status"])
        #expect(
            !(status["feeds"]?.description.contains("payroll") ?? true), "the unknown key's push was applied: \(status)"
        )
        #expect((status["curve"]?["refused"]?.numberValue ?? 0) >= 1)
        #expect(status["curve"]?["clients"] == ["alice"])
        #expect(status["curve"]?["serverKey"] == .string(try Self.serverKey(daemon)))
        #expect(daemon.log.contains("refused a connection: its key is not in the client keys directory"))
        #expect(daemon.log.contains(mallory.publicKey))
    }

    @Test("RowCastClient connects with CURVE credentials from a key file and the server's public key file")
    func swiftClient() throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let alice = try Self.client("alice", in: clients)
        let daemon = try Self.daemon(clients: clients)
        let keyFile = clients.path + "/alice.secret"
        try "public-key = \"\(alice.publicKey)\"\nsecret-key = \"\(alice.secretKey)\"\n".write(
            toFile: keyFile, atomically: true, encoding: .utf8)
        let curve = try CurveCredentials.load(
            serverKey: daemon.stateDirectory.path + "/curve/server.pub", keyFile: keyFile)
        let client = try ControlClient(endpoint: daemon.control, timeout: .seconds(5), curve: curve)
        defer { client.close() }
        #expect(try client.status()["ok"] == true)

        #expect(throws: RowCastClientError.self) { try CurveCredentials.load(serverKey: "not a key", keyFile: keyFile) }
        #expect(throws: RowCastClientError.self) {
            try CurveCredentials.load(serverKey: curve.serverKey, keyFile: clients.path + "/alice.key")
        }
    }

    @Test(
        "keys added and removed in the keys directory take effect on reload, without a restart or dropping admitted connections",
        arguments: [1, 2])
    func reloadRereadsKeys(threads: Int) throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let alice = try Self.client("alice", in: clients)
        let bob = try Self.client("bob", in: nil)
        let daemon = try Self.daemon(clients: clients, threads: threads)
        let admin = try RawPeer(daemon, curve: try Self.keys(daemon, alice))
        try admin.subscribe([Array("rows.cars".utf8) + [0]])

        let early = try RawPeer(daemon, curve: try Self.keys(daemon, bob))
        try early.dealer.setOption(.receiveTimeout, 1500)
        #expect(throws: TestFailure.self) { _ = try early.request(["op": "status"]) }

        try "public-key = \"\(bob.publicKey)\"\nallow = \"all *\"\n".write(
            toFile: clients.path + "/bob.key", atomically: true, encoding: .utf8)
        let reload = try admin.request(["op": "reload"])
        #expect(reload["ok"] == true)
        #expect(reload["curve"]?["clients"] == ["alice", "bob"])
        let admitted = try RawPeer(daemon, curve: try Self.keys(daemon, bob))
        #expect(
            try admitted.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("7")])["ok"]
                == true)

        try FileManager.default.removeItem(atPath: clients.path + "/bob.key")
        #expect(try admin.request(["op": "reload"])["curve"]?["clients"] == ["alice"])
        let late = try RawPeer(daemon, curve: try Self.keys(daemon, bob))
        try late.dealer.setOption(.receiveTimeout, 1500)
        #expect(throws: TestFailure.self) { _ = try late.request(["op": "status"]) }

        // alice's connections, admitted before both reloads, are still up: her subscriber got bob's delta.
        #expect(try admin.delta(feed: "cars", seq: 1)["seq"] == 1)
        #expect(try admin.request(["op": "status"])["ok"] == true)
    }

    @Test("a client key file that others can write is refused, naming the file and the fix; the other keys load")
    func insecureKeyFileRefused() throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let alice = try Self.client("alice", in: clients)
        _ = try Self.client("eve", in: clients)
        #expect(chmod(clients.path + "/eve.key", 0o666) == 0)
        let daemon = try Self.daemon(clients: clients)
        let status = try RawPeer(daemon, curve: try Self.keys(daemon, alice)).request(["op": "status"])
        #expect(status["curve"]?["clients"] == ["alice"])
        let problem = status["curve"]?["keyProblems"]?.arrayValue?.first?.stringValue ?? ""
        #expect(problem.contains("\(clients.path)/eve.key"))
        #expect(problem.contains("fix: chmod go-w"))
        #expect(daemon.log.contains("refused client key file"))
    }
}

extension CurveEndToEndTests {
    @Test(
        "rowcast keygen writes a pair; --server-key and --key, or ROWCAST_SERVER_KEY, ROWCAST_KEY and ROWCAST_CONTROL, connect the CLI with CURVE"
    )
    func commandLine() throws {
        let work = try TemporaryDirectory("rowcast-keygen")
        let keygen = try CommandRunner(["keygen", "carol", "--directory", work.path])
        #expect(keygen.wait() == 0, "\(keygen.stderr)")
        var info = stat()
        #expect(stat(work.path + "/carol.key", &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(work.path + "/carol.pub", &info) == 0 && info.st_mode & 0o777 == 0o644)
        let again = try CommandRunner(["keygen", "carol", "--directory", work.path])
        #expect(again.wait() != 0)
        #expect(again.stderr.contains("never overwrites"))

        let clients = try TemporaryDirectory("rowcast-clients")
        try FileManager.default.copyItem(atPath: work.path + "/carol.pub", toPath: clients.path + "/carol.key")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: clients.path + "/carol.key"))
        handle.seekToEndOfFile()
        handle.write(Data("allow = \"all *\"\n".utf8))
        try handle.close()
        let daemon = try Self.daemon(clients: clients)
        let serverPub = daemon.stateDirectory.path + "/curve/server.pub"

        let flags = try CommandRunner([
            "status", "--control", daemon.control, "--server-key", serverPub, "--key", work.path + "/carol.key",
        ])
        #expect(flags.wait() == 0, "\(flags.stderr)")
        #expect(flags.stdout.contains("rowcastd"))

        let environment = [
            "ROWCAST_CONTROL": daemon.control, "ROWCAST_SERVER_KEY": try Self.serverKey(daemon),
            "ROWCAST_KEY": work.path + "/carol.key",
        ]
        let viaEnvironment = try CommandRunner(["status", "--json"], environment: environment)
        #expect(viaEnvironment.wait() == 0, "\(viaEnvironment.stderr)")
        #expect(viaEnvironment.stdout.contains("\"curve\""))

        let half = try CommandRunner(["status", "--control", daemon.control, "--server-key", serverPub])
        #expect(half.wait() == 64)
        #expect(half.stderr.contains("--server-key (or ROWCAST_SERVER_KEY) needs --key"))
    }
}

extension CurveEndToEndTests {
    @Test("a server key file that others can read stops rowcastd, naming the file and the fix")
    func readableServerKeyRefused() throws {
        let directory = try TemporaryDirectory("rowcast-server-key")
        let pair = try Curve.keyPair()
        let file = directory.path + "/server.key"
        try "public-key = \"\(pair.publicKey)\"\nsecret-key = \"\(pair.secretKey)\"\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        #expect(chmod(file, 0o644) == 0)
        let state = try TemporaryDirectory("rowcast-state")
        let run = try runRowcastdToExit([
            "--curve", "--curve-server-key", file, "--curve-clients", directory.path, "--state-dir", state.path,
        ])
        #expect(run.status == 78)
        #expect(run.stderr.contains("\(file)") && run.stderr.contains("fix: chmod 0600"), "\(run.stderr)")
        let check = try runRowcastdToExit([
            "--check-config", "--curve", "--curve-server-key", file, "--curve-clients", directory.path,
        ])
        #expect(check.status == 78, "\(check.stderr)")
        #expect(check.stderr.contains("fix: chmod 0600"))
    }
}

/// A plain client without CURVE.
enum ControlClientProbe {
    /// Whether a status request without CURVE goes unanswered (1.5 s).
    static func plainStatusTimesOut(_ endpoint: String) -> Bool {
        guard let client = try? ControlClient(endpoint: endpoint, timeout: .milliseconds(1500)) else { return false }
        defer { client.close() }
        do {
            _ = try client.status()
            return false
        } catch {
            return error.code == "timeout"
        }
    }
}
