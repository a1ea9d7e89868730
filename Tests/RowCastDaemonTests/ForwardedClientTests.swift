import Foundation
import Logging
@testable import RowCastDaemon
import Testing
import ZeroMQ

/// The client frame a cluster node forwards with each message under CURVE: honoured from a
/// node's connection (and from unchecked ones), refused from a CURVE client, required from a node.
struct ForwardedClientTests {
    static let alice = ClientKeyring.Client(
        name: "alice", publicKey: "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", grants: [])

    static var keyring: ClientKeyring {
        var keyring = ClientKeyring()
        keyring.add(alice)
        return keyring
    }

    static func resolve(_ frames: Int, _ second: [UInt8]?, _ userID: String?) -> ForwardedClient.Resolution {
        ForwardedClient.resolve(frameCount: frames, second: second, userID: userID, keyring: keyring)
    }

    @Test("a node's frame names the client by key: its name here, or nothing checked for a local client")
    func nodeFrames() {
        let node = ForwardedClient.nodeUserID
        #expect(
            Self.resolve(2, ForwardedClient.frame(publicKey: Self.alice.publicKey), node)
                == .client(principal: "alice", frameCount: 1))
        #expect(Self.resolve(2, ForwardedClient.frame(publicKey: nil), node) == .client(principal: nil, frameCount: 1))
        guard
            case .refused(let unknown) = Self.resolve(
                2, ForwardedClient.frame(publicKey: String(repeating: "x", count: 40)), node)
        else { return #expect(Bool(false), "an unknown key was accepted") }
        #expect(unknown.contains("not in this node's client keys directory"))
        // A node must name a client in every message.
        guard case .refused(let bare) = Self.resolve(1, nil, node) else {
            return #expect(Bool(false), "a node's message without a client frame was accepted")
        }
        #expect(bare.contains("must name the client"))
        #expect(Self.resolve(2, Array("other".utf8), node) != .client(principal: nil, frameCount: 2))
    }

    @Test("a CURVE client naming another client is refused; its ordinary messages keep their frames and name")
    func clientFrames() {
        guard
            case .refused(let forged) = Self.resolve(
                2, ForwardedClient.frame(publicKey: Self.alice.publicKey), "mallory")
        else { return #expect(Bool(false), "a forged client frame was honoured") }
        #expect(forged.contains("client \"mallory\" sent a rowcast-client frame"))
        #expect(Self.resolve(1, nil, "mallory") == .client(principal: "mallory", frameCount: 1))
        #expect(Self.resolve(2, Array("x".utf8), "mallory") == .client(principal: "mallory", frameCount: 2))
        #expect(Self.resolve(3, nil, "mallory") == .client(principal: "mallory", frameCount: 3))
    }

    @Test("an unchecked connection (ipc://, CURVE off) may name a client, which only narrows what it may do")
    func uncheckedFrames() {
        #expect(
            Self.resolve(2, ForwardedClient.frame(publicKey: Self.alice.publicKey), nil)
                == .client(principal: "alice", frameCount: 1))
        #expect(
            Self.resolve(2, ForwardedClient.frame(publicKey: Self.alice.publicKey), "")
                == .client(principal: "alice", frameCount: 1))
        #expect(
            ForwardedClient.resolve(
                frameCount: 2, second: ForwardedClient.frame(publicKey: Self.alice.publicKey), userID: nil, keyring: nil
            )
                == .client(principal: nil, frameCount: 1))
    }

    @Test("the ZAP handler of a node admits the server key as @node; a node's peer without a node key does not")
    func zapAdmitsNodes() throws {
        let server = try Curve.keyPair()
        let context = try Context()
        let request: ([UInt8]) -> [[UInt8]] = { key in
            [
                Array("1.0".utf8), Array("7".utf8), Array("rowcast".utf8), Array("127.0.0.1".utf8), [],
                Array("CURVE".utf8), key,
            ]
        }
        let serverKey = try #require(Curve.decode(server.publicKey))
        do {
            let zap = try ZAPHandler(
                context: context, keyring: Self.keyring, nodeKey: server.publicKey, logger: Logger(label: "test"))
            defer { zap.socket?.close() }
            let reply = zap.reply(to: request(serverKey))
            #expect(String(decoding: reply[2], as: UTF8.self) == "200")
            #expect(String(decoding: reply[4], as: UTF8.self) == ForwardedClient.nodeUserID)
            #expect(zap.admittedNodes == 1)
        }
        let otherContext = try Context()
        let alone = try ZAPHandler(context: otherContext, keyring: Self.keyring, logger: Logger(label: "test"))
        defer { alone.socket?.close() }
        #expect(String(decoding: alone.reply(to: request(serverKey))[2], as: UTF8.self) == "400")
    }
}
