import Foundation
import RowCastJSON
import Testing

/// Issue 13, failures 5 and 6: one rule for extra frames on both sockets, `req` and `client`
/// on every event a request caused, and error messages that list every allowed member.
@Suite(.serialized)
struct ProtocolConsistencyEndToEndTests {
    func upsert(_ id: String, req: Int, type: String = "product") -> [UInt8] {
        Array(
            #"{"req":\#(req),"client":"mf","op":"upsert","feed":"m","item":{"id":"\#(id)","type":"\#(type)","data":{"name":"n","operatedBy":"T","price":1,"image":"i"}}}"#
                .utf8)
    }

    func rowIDs(_ snapshot: JSONValue) -> [String] {
        (snapshot["sections"]?.arrayValue ?? []).flatMap { $0["rows"]?.arrayValue ?? [] }.compactMap {
            $0["id"]?.stringValue
        }
    }

    @Test("control: [empty, U1, U2] is refused whole with invalid_request echoing U1's req; neither is applied")
    func controlMultiFrame() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        _ = try peer.dealer.send([[], upsert("u1", req: 1), upsert("u2", req: 2)])
        guard let frames = try peer.dealer.receiveMultipart() else { throw TestFailure("no reply within 5 s") }
        #expect(frames.count == 2)
        let reply = try JSONParser.parse(frames[1])
        #expect(reply["ok"] == false)
        #expect(reply["error"]?["code"] == "invalid_request")
        #expect(reply["error"]?["message"]?.stringValue?.contains("got 2") == true, "\(reply)")
        #expect(reply["req"] == 1)
        #expect(reply["client"] == "mf")
        #expect(rowIDs(try peer.request(["op": "snapshot", "feed": "m"])) == [])
        daemon.stop()
    }

    @Test(
        "ingest: [U1, U2] is refused whole with an invalid_request event echoing U1's req and client; neither is applied"
    )
    func ingestMultiFrame() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("errors".utf8)])
        _ = try peer.push.send([upsert("u1", req: 1), upsert("u2", req: 2)])
        let (topic, event) = try peer.receive { _, body in body["code"] == "invalid_request" }
        #expect(topic == "errors.m")
        #expect(event["req"] == 1)
        #expect(event["client"] == "mf")
        #expect(rowIDs(try peer.request(["op": "snapshot", "feed": "m"])) == [])
        daemon.stop()
    }

    @Test("the unknown_type event of an upsert carries its req and client, on both sockets")
    func unknownTypeEventCarriesReq() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("errors".utf8)])
        _ = try peer.requestText(String(decoding: upsert("g1", req: 41, type: "gadget"), as: UTF8.self))
        let (_, first) = try peer.receive { _, body in body["code"] == "unknown_type" }
        #expect(first["req"] == 41)
        #expect(first["client"] == "mf")
        var other = String(decoding: upsert("g2", req: 42, type: "widget"), as: UTF8.self)
        other = other.replacingOccurrences(of: #""feed":"m""#, with: #""feed":"w""#)
        try peer.pushRaw(Array(other.utf8))
        let (_, second) = try peer.receive { _, body in body["code"] == "unknown_type" }
        #expect(second["req"] == 42)
        #expect(second["client"] == "mf")
        daemon.stop()
    }

    @Test("an unknown item member is refused naming every allowed member, data included")
    func unknownMemberListsData() throws {
        let daemon = try DaemonProcess()
        let reply = try RawPeer(daemon).request([
            "op": "upsert", "feed": "m", "item": ["id": "1", "type": "product", "colour": "red"],
        ])
        #expect(reply["error"]?["code"] == "invalid_field")
        #expect(
            reply["error"]?["message"]?.stringValue?.contains("allowed: data, id, section, sort, type") == true,
            "\(reply)")
        daemon.stop()
    }
}
