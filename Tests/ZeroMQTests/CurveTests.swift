import Foundation
import Testing
import ZeroMQ

/// CURVE through the wrapper: key pairs, a ZAP handler naming the peer, the User-Id on every
/// message, and an XPUB with manual subscriptions that sees who subscribes.
@Suite("CURVE, ZAP and XPUB")
struct CurveTests {
    /// Answers one ZAP request on `zap` with `status` and `user`; returns the request's frames.
    static func answerZAP(_ zap: Socket, status: String, user: String) throws -> [[UInt8]] {
        let request = try #require(try zap.receiveMultipart())
        _ = try zap.send([bytes("1.0"), request[1], bytes(status), bytes("OK"), bytes(user), []])
        return request
    }

    @Test("Z85 keys: a pair belongs together, decode and encode round-trip, bad text is refused")
    func keys() throws {
        #expect(Curve.isAvailable)
        let pair = try Curve.keyPair()
        #expect(try Curve.publicKey(ofSecret: pair.secretKey) == pair.publicKey)
        #expect(Curve.decode(pair.publicKey)?.count == 32)
        #expect(Curve.encode(try #require(Curve.decode(pair.secretKey))) == pair.secretKey)
        #expect(!Curve.isKey("too short") && Curve.decode("too short") == nil)
        #expect(throws: ZeroMQError.self) { try Curve.publicKey(ofSecret: "nope") }
    }

    @Test("the ZAP handler sees the client's key; its User-Id comes with every message, on PULL, ROUTER and XPUB")
    func userIdMetadata() throws {
        let context = try Context()
        let zap = try openSocket(context, .rep)
        defer { zap.close() }
        try zap.bind("inproc://zeromq.zap.01")
        let server = try Curve.keyPair()
        let client = try Curve.keyPair()
        func serve(_ socket: Socket) throws -> String {
            try socket.setOption(.curveServer, true)
            try socket.setOption(.curveSecretKey, bytes(server.secretKey))
            try socket.setOption(.zapDomain, bytes("test"))
            return try bindReal(socket, "tcp://127.0.0.1:*")
        }
        func connect(_ socket: Socket, to endpoint: String) throws {
            try socket.setOption(.curveServerKey, bytes(server.publicKey))
            try socket.setOption(.curvePublicKey, bytes(client.publicKey))
            try socket.setOption(.curveSecretKey, bytes(client.secretKey))
            try socket.connect(endpoint)
        }

        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try connect(push, to: try serve(pull))
        let request = try Self.answerZAP(zap, status: "200", user: "alice")
        #expect(text(request[5]) == "CURVE")
        #expect(Curve.encode(request[6]) == client.publicKey)
        _ = try push.send(bytes("hello"))
        let received = try #require(try pull.receiveMultipart(property: "User-Id"))
        #expect(received.frames == [bytes("hello")] && received.property == "alice")

        let router = try openSocket(context, .router)
        let dealer = try openSocket(context, .dealer)
        defer { dealer.close(); router.close() }
        try connect(dealer, to: try serve(router))
        _ = try Self.answerZAP(zap, status: "200", user: "bob")
        _ = try dealer.send([[], bytes("request")])
        let routed = try #require(try router.receiveMultipart(property: "User-Id"))
        #expect(routed.frames.count == 3 && routed.property == "bob")  // the routing id frame has none; the body has it

        let xpub = try openSocket(context, .xpub)
        let sub = try openSocket(context, .sub)
        defer { sub.close(); xpub.close() }
        try xpub.setOption(.xpubManual, true)
        try connect(sub, to: try serve(xpub))
        _ = try Self.answerZAP(zap, status: "200", user: "carol")
        try sub.subscribe("rows.cars")
        let subscription = try #require(try xpub.receiveMultipart(property: "User-Id"))
        #expect(subscription.frames == [[1] + bytes("rows.cars")] && subscription.property == "carol")
        // Nothing reaches the subscriber until the application applies its subscription.
        _ = try xpub.send([bytes("rows.cars"), bytes("early")])
        try xpub.subscribe(bytes("rows.cars"))
        _ = try xpub.send([bytes("rows.cars"), bytes("delta")])
        #expect(try sub.receiveMultipart() == [bytes("rows.cars"), bytes("delta")])
    }

    @Test("a ZAP refusal (400) keeps the client out: nothing it sends arrives")
    func refused() throws {
        let context = try Context()
        let zap = try openSocket(context, .rep)
        defer { zap.close() }
        try zap.bind("inproc://zeromq.zap.01")
        let server = try Curve.keyPair()
        let client = try Curve.keyPair()
        let pull = try openSocket(context, .pull, timeoutMilliseconds: 300)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try pull.setOption(.curveServer, true)
        try pull.setOption(.curveSecretKey, bytes(server.secretKey))
        let endpoint = try bindReal(pull, "tcp://127.0.0.1:*")
        try push.setOption(.curveServerKey, bytes(server.publicKey))
        try push.setOption(.curvePublicKey, bytes(client.publicKey))
        try push.setOption(.curveSecretKey, bytes(client.secretKey))
        try push.setOption(.reconnectInterval, -1)
        try push.connect(endpoint)
        _ = try Self.answerZAP(zap, status: "400", user: "")
        _ = try push.send(bytes("let me in"), dontWait: true)
        #expect(try pull.receive() == nil)
    }

    @Test(
        "with no ZAP handler bound, a CURVE server admits any key unchecked; with ZMQ_ZAP_ENFORCE_DOMAIN it admits none"
    )
    func enforcedDomainWithoutHandler() throws {
        let server = try Curve.keyPair()
        for enforced in [false, true] {
            let context = try Context()
            let client = try Curve.keyPair()
            let pull = try openSocket(context, .pull, timeoutMilliseconds: enforced ? 500 : 10_000)
            let push = try openSocket(context, .push)
            try pull.setOption(.curveServer, true)
            try pull.setOption(.curveSecretKey, bytes(server.secretKey))
            try pull.setOption(.zapDomain, bytes("test"))
            if enforced { try pull.setOption(.zapEnforceDomain, true) }
            let endpoint = try bindReal(pull, "tcp://127.0.0.1:*")
            try push.setOption(.curveServerKey, bytes(server.publicKey))
            try push.setOption(.curvePublicKey, bytes(client.publicKey))
            try push.setOption(.curveSecretKey, bytes(client.secretKey))
            try push.setOption(.linger, 0)
            try push.connect(endpoint)
            _ = try push.send(bytes("unchecked"), dontWait: true)
            let received = try pull.receiveMultipart(property: "User-Id")
            if enforced {
                #expect(received == nil, "a key was admitted with no ZAP handler")
            } else {
                #expect(received?.frames == [bytes("unchecked")] && received?.property == nil)
            }
            push.close()
            pull.close()
        }
    }
}
