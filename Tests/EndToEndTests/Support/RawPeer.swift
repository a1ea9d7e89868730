import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import ZeroMQ

/// Raw ZeroMQ peers speaking docs/PROTOCOL.md directly, with bounded waits, so the end-to-end
/// tests check the wire format itself rather than the Swift client's view of it.
final class RawPeer {
    let context: Context
    let dealer: Socket
    let push: Socket
    let subscriber: Socket
    private var nextReq = 0

    /// How long a request waits for its reply: 5 s, and 20 s under a sanitizer, which makes
    /// the daemon several times slower (rendering every item again after a failed commit, say).
    static let timeoutMilliseconds = SanitizerRuntime.isActive ? 20_000 : 5_000
    /// The same, in seconds, for messages.
    static var timeoutText: String { "\(timeoutMilliseconds / 1000) s" }

    /// Peers of `daemon`'s three sockets; CURVE clients when `curve` is given.
    init(_ daemon: DaemonProcess, curve: TestCurveKeys? = nil) throws {
        context = try Context()
        dealer = try Socket(context: context, type: .dealer)
        push = try Socket(context: context, type: .push)
        subscriber = try Socket(context: context, type: .sub)
        for socket in [dealer, push, subscriber] {
            try socket.setOption(.linger, 0)
            try socket.setOption(.receiveTimeout, Self.timeoutMilliseconds)
            try socket.setOption(.sendTimeout, Self.timeoutMilliseconds)
            if let curve {
                try socket.setOption(.curveServerKey, Array(curve.serverKey.utf8))
                try socket.setOption(.curvePublicKey, Array(curve.publicKey.utf8))
                try socket.setOption(.curveSecretKey, Array(curve.secretKey.utf8))
            }
        }
        try dealer.connect(daemon.control)
        try push.connect(daemon.ingest)
        try subscriber.connect(daemon.publish)
    }

    /// Sends one request over the control socket and waits (5 s at most; 20 s under a sanitizer) for its reply.
    func request(_ body: JSONValue) throws -> JSONValue {
        nextReq += 1
        var object = body.objectValue ?? JSONObject()
        if object["req"] == nil { object["req"] = .number(Double(nextReq)) }
        _ = try dealer.send([[], JSONValue.object(object).serialized()])
        while true {
            guard let frames = try dealer.receiveMultipart() else {
                throw TestFailure("no reply within \(Self.timeoutText) to \(body)")
            }
            guard frames.count == 2, frames[0].isEmpty else { throw TestFailure("reply frames: \(frames.count)") }
            let reply = try JSONParser.parse(frames[1])
            if reply["req"]?.serialized() == object["req"]?.serialized() { return reply }
        }
    }

    /// Sends `text` as it is (one frame after the empty delimiter) over the control socket and
    /// returns the next reply's text, byte for byte (5 s at most; 20 s under a sanitizer).
    func requestText(_ text: String) throws -> String {
        _ = try dealer.send([[], Array(text.utf8)])
        guard let frames = try dealer.receiveMultipart() else {
            throw TestFailure("no reply within \(Self.timeoutText) to \(text)")
        }
        guard frames.count == 2, frames[0].isEmpty else { throw TestFailure("reply frames: \(frames.count)") }
        return String(decoding: frames[1], as: UTF8.self)
    }

    /// The text of the next publication on `topic`, byte for byte (5 s per message at most; 20 s under a sanitizer).
    func publicationText(topic: String) throws -> String {
        while true {
            guard let frames = try subscriber.receiveMultipart() else {
                throw TestFailure("nothing published on \(topic) within \(Self.timeoutText)")
            }
            guard frames.count == 2, frames[0].last == 0 else { throw TestFailure("bad publication framing") }
            if String(decoding: frames[0].dropLast(), as: UTF8.self) == topic {
                return String(decoding: frames[1], as: UTF8.self)
            }
        }
    }

    /// Pushes raw bytes over the ingest socket.
    func pushRaw(_ bytes: [UInt8]) throws { _ = try push.send(bytes) }

    /// Subscribes to a topic prefix and waits until the subscription is live, proven by a
    /// heartbeat arriving (the daemon heartbeats every 200 ms in tests).
    func subscribe(_ topics: [[UInt8]]) throws {
        for topic in topics { try subscriber.subscribe(topic) }
        try subscriber.subscribe(Array("heartbeat".utf8))
        _ = try receive { topic, _ in topic == "heartbeat" }
        try subscriber.unsubscribe(Array("heartbeat".utf8))
    }

    /// Receives publications until `match` accepts one (5 s per message at most; 20 s under a sanitizer).
    func receive(until match: (String, JSONValue) -> Bool) throws -> (String, JSONValue) {
        while true {
            guard let frames = try subscriber.receiveMultipart() else {
                throw TestFailure("nothing published within \(Self.timeoutText)")
            }
            guard frames.count == 2, frames[0].last == 0 else { throw TestFailure("bad publication framing") }
            let topic = String(decoding: frames[0].dropLast(), as: UTF8.self)
            let body = try JSONParser.parse(frames[1])
            if match(topic, body) { return (topic, body) }
        }
    }

    /// Waits for the next delta of `feed` with sequence number `seq` at least.
    func delta(feed: String, seq: Int) throws -> JSONValue {
        try receive { topic, body in topic == "rows.\(feed)" && Int(body["seq"]?.numberValue ?? 0) >= seq }.1
    }

    deinit {
        dealer.close()
        push.close()
        subscriber.close()
    }
}

/// A CURVE client's keys for a ``RawPeer``: the daemon's public key and the client's pair.
struct TestCurveKeys {
    let serverKey: String
    let publicKey: String
    let secretKey: String
}
