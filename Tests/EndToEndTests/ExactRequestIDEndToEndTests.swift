import Foundation
import RowCastJSON
import Testing

/// Issue 13, failures 1 and 2: `req` is compared and echoed as the exact text the client
/// sent, and header values pass through byte for byte (over real sockets, a real rowcastd).
@Suite(.serialized)
struct ExactRequestIDEndToEndTests {
    func upsert(_ id: String, req: String, client: String = "c1") -> String {
        #"{"op":"upsert","feed":"big","client":"\#(client)","req":\#(req),"item":{"id":"\#(id)","type":"product","data":{"name":"\#(id)","operatedBy":"T","price":1,"image":"i"}}}"#
    }

    func rowIDs(_ snapshot: JSONValue) -> Set<String> {
        Set(
            (snapshot["sections"]?.arrayValue ?? []).flatMap { $0["rows"]?.arrayValue ?? [] }.compactMap {
                $0["id"]?.stringValue
            })
    }

    @Test(
        "upserts with req 123456789012345678 and 123456789012345679 are two requests, both applied, before and after a restart"
    )
    func bigIntegerReqs() throws {
        var daemon = try DaemonProcess()
        var peer = try RawPeer(daemon)
        let first = try peer.requestText(upsert("big1", req: "123456789012345678"))
        let second = try peer.requestText(upsert("big2", req: "123456789012345679"))
        #expect(first.hasPrefix(#"{"ok":true,"op":"upsert","feed":"big","seq":1"#), "\(first)")
        #expect(first.hasSuffix(#""req":123456789012345678,"client":"c1"}"#), "\(first)")
        #expect(second.hasPrefix(#"{"ok":true,"op":"upsert","feed":"big","seq":2"#), "\(second)")
        #expect(second.hasSuffix(#""req":123456789012345679,"client":"c1"}"#), "\(second)")
        #expect(rowIDs(try peer.request(["op": "snapshot", "feed": "big"])) == ["big1", "big2"])
        // A retry is answered from the ledger with the first answer, and not applied again.
        #expect(try peer.requestText(upsert("big2", req: "123456789012345679")) == second)

        // Nanosecond-timestamp-sized ids 37 apart: 50 requests, 50 applied.
        let base = 1_763_000_000_000_000_000 as UInt64
        for index in 0..<50 {
            let reply = try peer.requestText(upsert("ts\(index)", req: "\(base + UInt64(index) * 37)", client: "c2"))
            #expect(reply.hasSuffix(#""req":\#(base + UInt64(index) * 37),"client":"c2"}"#), "\(reply)")
        }
        #expect(rowIDs(try peer.request(["op": "snapshot", "feed": "big"])).count == 52)

        // After a restart the ledger still tells the two ids apart.
        let state = daemon.stateDirectory
        let plugins = daemon.pluginDirectory
        daemon.stop()
        daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        peer = try RawPeer(daemon)
        #expect(try peer.requestText(upsert("big1", req: "123456789012345678")) == first)
        #expect(try peer.requestText(upsert("big2", req: "123456789012345679")) == second)
        let third = try peer.requestText(upsert("big3", req: "123456789012345680"))
        #expect(third.contains(#""seq":53"#), "\(third)")
        daemon.stop()
    }

    @Test(
        "status echoes a 19-digit req, a 40-digit req, -0 and string reqs with escapes exactly as sent",
        arguments: [
            "123456789012345678", "1234567890123456789", "-1234567890123456789012345678901234567890", "-0",
            #""r-7""#, #""a\/b\u00e9\n""#,
        ])
    func statusEchoesReq(req: String) throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        let reply = try peer.requestText(#"{"op":"status","req":\#(req)}"#)
        #expect(reply.hasPrefix(#"{"ok":true,"op":"status""#), "\(reply)")
        #expect(reply.hasSuffix(#","req":\#(req)}"#), "\(reply)")
        // A snapshot reply, written by another path, echoes it the same way.
        let snapshot = try peer.requestText(#"{"op":"snapshot","feed":"f","req":\#(req)}"#)
        #expect(snapshot.hasSuffix(#","req":\#(req)}"#), "\(snapshot)")
        daemon.stop()
    }

    @Test(
        "req 1 is applied; 1.0 and 1e0 are refused with invalid_field and echoed as written, so none is taken for another"
    )
    func nonIntegerReqs() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        let one = try peer.requestText(upsert("a", req: "1"))
        #expect(one.contains(#""ok":true"#) && one.hasSuffix(#""req":1,"client":"c1"}"#), "\(one)")
        for text in ["1.0", "1e0"] {
            let reply = try JSONParser.parse(try peer.requestText(upsert("b", req: text)))
            #expect(reply["ok"] == false)
            #expect(reply["error"]?["code"] == "invalid_field")
            #expect(reply["error"]?["field"] == "req")
            #expect(reply["req"]?.description == text)
        }
        #expect(rowIDs(try peer.request(["op": "snapshot", "feed": "big"])) == ["a"])
        daemon.stop()
    }

    @Test(
        "header values stay as written (123456789012345678, -0, 1.50, 1e0) in the snapshot and the delta, and after a restart"
    )
    func headerValuesExact() throws {
        var daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("rows.h".utf8)])
        let header = #"{"title":"T","n":123456789012345678,"z":-0,"f":1.50,"e":1e0,"a":[-0.0,12345678901234567890]}"#
        let reply = try peer.requestText(
            #"{"op":"section","feed":"h","req":1,"section":{"id":"s","order":2,"type":"sponsored","header":\#(header)}}"#
        )
        #expect(reply.contains(#""ok":true"#), "\(reply)")
        let delta = try peer.publicationText(topic: "rows.h")
        #expect(delta.contains(#""header":\#(header)"#), "\(delta)")
        let snapshot = try peer.requestText(#"{"op":"snapshot","feed":"h"}"#)
        #expect(snapshot.contains(#""header":\#(header)"#), "\(snapshot)")
        let (state, plugins) = (daemon.stateDirectory, daemon.pluginDirectory)
        daemon.stop()
        daemon = try DaemonProcess(pluginDirectory: plugins, stateDirectory: state)
        let restored = try RawPeer(daemon).requestText(#"{"op":"snapshot","feed":"h"}"#)
        #expect(restored.contains(#""header":\#(header)"#), "\(restored)")
        daemon.stop()
    }
}
