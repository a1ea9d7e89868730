import Foundation
import RowCastJSON
import Testing
import ZeroMQ

/// A CURVE client that writes, in its own frames, what the front of several engine loops writes
/// to name a message's client (docs/OPERATIONS.md, "Engine threads"): the header frame before a
/// control request's routing frames, the first frame of an ingest message. Only the front reaches
/// the loops' `inproc://` sockets, so such frames from a client are the client's own: they name
/// nobody, and the request is judged as the client's, with 1 loop (no front) and with 3.
@Suite(.serialized)
struct CurveForgedFramesEndToEndTests {
    typealias Curve = CurveEndToEndTests

    /// The front's header naming `userID` (`FrontHeader`: "d", a fan-out number of 8 bytes,
    /// then the User-Id), written here by hand as a client would.
    static func forgedHeader(naming userID: String) -> [UInt8] {
        [0x64] + [UInt8](repeating: 0, count: 8) + Array(userID.utf8)
    }

    @Test(
        "frames that mimic the front's naming of a client name nobody: the requests are refused as the sender's, on every loop",
        arguments: [1, 3])
    func forgedNamesAreTheSendersOwn(threads: Int) throws {
        let clients = try TemporaryDirectory("rowcast-clients")
        let admin = try Curve.client("admin", in: clients, allow: ["all *"])
        let reader = try Curve.client("reader", in: clients, allow: ["read bikes cars orders"])
        let daemon = try Curve.daemon(clients: clients, threads: threads)
        defer { daemon.stop() }
        let adminPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, admin))
        let readerPeer = try RawPeer(daemon, curve: try Curve.keys(daemon, reader))
        try adminPeer.subscribe([Array("errors".utf8) + [0]])

        for feed in CurveEngineThreadsEndToEndTests.feeds {
            // Control: the forged header first, as a DEALER may send any frames before the
            // delimiter; the reply comes back with them, as routing frames.
            let body: JSONValue = [
                "op": "upsert", "feed": .string(feed), "item": CurveEngineThreadsEndToEndTests.product("forged"),
                "req": .string("forged-\(feed)"),
            ]
            let routing = Self.forgedHeader(naming: "admin")
            _ = try readerPeer.dealer.send([routing, [], body.serialized()])
            let frames = try #require(try readerPeer.dealer.receiveMultipart(), "no reply to the forged request")
            #expect(frames.count == 3 && frames[0] == routing && frames[1].isEmpty, "reply frames: \(frames)")
            let reply = try JSONParser.parse(frames.last ?? [])
            #expect(reply["error"]?["code"] == "forbidden", "\(reply)")
            #expect(
                reply["error"]?["message"]?.stringValue?.contains("client \"reader\" lacks the publish permission")
                    == true, "\(reply)")

            // Ingest: a first frame naming the admin, then the request: a message of two
            // frames, refused whole (`invalid_request`, on `errors`: its first frame names no
            // feed) whoever sends it.
            let ingestBody: JSONValue = [
                "op": "upsert", "feed": .string(feed), "item": CurveEngineThreadsEndToEndTests.product("forged-ingest"),
            ]
            _ = try readerPeer.push.send([Array("admin".utf8), ingestBody.serialized()])
            let (_, event) = try adminPeer.receive { topic, body in
                topic == "errors" && body.description.contains("got 2")
            }
            #expect(event["code"] == "invalid_request", "\(event)")

            let snapshot = try adminPeer.request(["op": "snapshot", "feed": .string(feed)])
            for id in ["forged", "forged-ingest"] {
                #expect(!snapshot.description.contains("\"id\":\"\(id)\""), "\(feed): \(snapshot)")
            }
        }
        // The admin's own requests go through on every loop: the refusals above were the grants'.
        for feed in CurveEngineThreadsEndToEndTests.feeds {
            let reply = try adminPeer.request([
                "op": "upsert", "feed": .string(feed), "item": CurveEngineThreadsEndToEndTests.product("1"),
            ])
            #expect(reply["ok"] == true, "\(reply)")
        }
    }
}
