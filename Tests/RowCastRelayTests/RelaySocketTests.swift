import RowCastJSON
import RowCastRelay
import Testing
import ZeroMQ

/// A relay between test clients and a fake rowcastd (a ROUTER and an XPUB driven by the test):
/// replies reach only the client that asked, in order, parts included; writes never leave the
/// relay; subscriptions travel up and messages down. Every wait is bounded by a 5 s receive
/// timeout; the suite's limit only catches a hang (one test took 195 s under AddressSanitizer
/// on a 2-core machine with a load average near 10, without a failed expectation).
@Suite(.serialized, .timeLimit(.minutes(5)))
struct RelaySocketTests {
    /// The fake rowcastd's sockets and a relay in front of them.
    final class Setup {
        let context: Context
        let upstreamControl: Socket
        let upstreamPublish: Socket
        let relay: Relay

        init() throws {
            context = try Context()
            upstreamControl = try Self.socket(context, .router)
            try upstreamControl.bind("tcp://127.0.0.1:*")
            upstreamPublish = try Self.socket(context, .xpub)
            try upstreamPublish.setOption(.xpubVerbose, true)
            try upstreamPublish.bind("tcp://127.0.0.1:*")
            relay = try Relay.start(
                RelayConfiguration(
                    upstreamPublish: try upstreamPublish.lastEndpoint,
                    upstreamControl: try upstreamControl.lastEndpoint,
                    publish: "tcp://127.0.0.1:*", control: "tcp://127.0.0.1:*"))
        }

        /// A socket with no linger and a 5 s receive timeout (every wait is bounded).
        static func socket(_ context: Context, _ type: SocketType) throws -> Socket {
            let socket = try Socket(context: context, type: type)
            try socket.setOption(.linger, 0)
            try socket.setOption(.receiveTimeout, 5000)
            return socket
        }

        /// A DEALER connected to the relay's control endpoint.
        func client() throws -> Socket {
            let socket = try Self.socket(context, .dealer)
            try socket.connect(relay.controlEndpoint)
            return socket
        }

        func stop() throws {
            relay.stop()
            try relay.wait()
            upstreamControl.close()
            upstreamPublish.close()
        }
    }

    static func body(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func json(_ frame: [UInt8]) throws -> JSONValue { try JSONParser.parse(frame) }

    @Test(
        "pipelined requests of two clients: each reply, and each part of a reply in parts, reaches the client that asked, in order"
    )
    func repliesGoToTheirClient() throws {
        let setup = try Setup()
        defer { try? setup.stop() }
        let alice = try setup.client()
        let bob = try setup.client()
        for n in 0..<3 {
            try alice.send([[], Self.body(#"{"op":"snapshot","feed":"cars","chunked":true,"req":"a\#(n)"}"#)])
            try bob.send([Self.body(#"{"op":"since","feed":"cars","epoch":"e","seq":\#(n),"req":\#(n)}"#)])
        }
        // The fake rowcastd answers each request with as many parts as its envelope says,
        // echoing the envelope as rowcastd does (everything up to the empty frame).
        for _ in 0..<6 {
            let frames = try #require(try setup.upstreamControl.receiveMultipart())
            let found = frames.dropFirst().firstIndex { $0.isEmpty }
            let delimiter = try #require(found)
            let envelope = Array(frames[...delimiter])
            let request = try Self.json(frames[delimiter + 1])
            let req = String(decoding: request["req"]!.serialized(), as: UTF8.self)
            let parts = request["op"] == "snapshot" ? 3 : 1
            for part in 0..<parts {
                try setup.upstreamControl.send(
                    envelope + [
                        Self.body(
                            #"{"ok":true,"op":\#(String(decoding: request["op"]!.serialized(), as: UTF8.self)),"part":\#(part),"parts":\#(parts),"req":\#(req)}"#
                        )
                    ])
            }
        }
        for n in 0..<3 {
            for part in 0..<3 {
                let frames = try #require(try alice.receiveMultipart())
                #expect(frames.count == 2 && frames[0].isEmpty, "alice sent a delimiter, so gets one back")
                let reply = try Self.json(frames.last!)
                #expect(reply["req"] == .string("a\(n)"))
                #expect(reply["part"] == .number(Double(part)))
            }
            let frames = try #require(try bob.receiveMultipart())
            #expect(frames.count == 1, "bob sent no delimiter, so gets none back")
            let reply = try Self.json(frames[0])
            #expect(reply["req"] == .number(Double(n)))
            #expect(reply["op"] == "since")
        }
        try alice.setOption(.receiveTimeout, 200)
        #expect(try alice.receiveMultipart() == nil, "alice got a reply that was not hers")
        #expect(setup.relay.counters.snapshot().forwarded == 6)
        #expect(setup.relay.counters.snapshot().replies == 12)
    }

    @Test("a write is refused by the relay with read_only and never reaches rowcastd")
    func writesStayAtTheRelay() throws {
        let setup = try Setup()
        defer { try? setup.stop() }
        let client = try setup.client()
        try client.send([[], Self.body(#"{"op":"upsert","feed":"cars","item":{"id":"1","type":"product"},"req":7}"#)])
        let frames = try #require(try client.receiveMultipart())
        let reply = try Self.json(frames.last!)
        #expect(reply["error"]?["code"] == "read_only")
        #expect(reply["req"] == 7)
        try setup.upstreamControl.setOption(.receiveTimeout, 300)
        #expect(try setup.upstreamControl.receiveMultipart() == nil)
        #expect(setup.relay.counters.snapshot().refused == 1)
    }

    @Test("subscriptions travel up (every one: the XPUB is verbose) and published messages come down unchanged")
    func publishSide() throws {
        let setup = try Setup()
        defer { try? setup.stop() }
        var subscribers: [Socket] = []
        for _ in 0..<2 {
            let subscriber = try Setup.socket(setup.context, .sub)
            try subscriber.connect(setup.relay.publishEndpoint)
            try subscriber.subscribe(Array("rows.cars".utf8) + [0])
            subscribers.append(subscriber)
        }
        // Both subscriptions reach the fake rowcastd, as they would reach rowcastd directly.
        for _ in 0..<2 {
            let subscription = try #require(try setup.upstreamPublish.receive())
            #expect(subscription == [1] + Array("rows.cars".utf8) + [0])
        }
        let topic = Array("rows.cars".utf8) + [0]
        let delta = Self.body(#"{"event":"delta","feed":"cars","seq":1}"#)
        try setup.upstreamPublish.send([topic, delta])
        for subscriber in subscribers {
            #expect(try subscriber.receiveMultipart() == [topic, delta])
        }
    }

    @Test("stop ends both halves, and once wait() returns its endpoints can be bound again at once")
    func stopAndRebind() throws {
        var endpoints = ("", "")
        do {
            let setup = try Setup()
            endpoints = (setup.relay.publishEndpoint, setup.relay.controlEndpoint)
            try setup.stop()
        }
        let again = try Relay.start(
            RelayConfiguration(
                upstreamPublish: "tcp://127.0.0.1:1", upstreamControl: "tcp://127.0.0.1:1", publish: endpoints.0,
                control: endpoints.1))
        again.stop()
        try again.wait()
    }

    @Test("an endpoint that cannot be bound is an error naming it, and nothing is left running")
    func badEndpoint() throws {
        let setup = try Setup()
        defer { try? setup.stop() }
        do {
            _ = try Relay.start(
                RelayConfiguration(
                    upstreamPublish: "tcp://127.0.0.1:1", upstreamControl: "tcp://127.0.0.1:1",
                    publish: "tcp://127.0.0.1:*", control: setup.relay.controlEndpoint))
            Issue.record("a second relay bound the same control endpoint")
        } catch {
            #expect(error.message.contains(setup.relay.controlEndpoint), "\(error)")
            #expect(error.message.contains("control endpoint"), "\(error)")
        }
    }
}
