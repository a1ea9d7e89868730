import RowCastJSON
import RowCastRelay
import Testing

/// What a relay forwards and what it answers itself (docs/OPERATIONS.md, "Relays").
@Suite struct RelayRequestFilterTests {
    static func refusal(_ body: String, frames: Int = 1) throws -> JSONValue {
        guard case .refuse(let reply) = RelayRequestFilter.decide(Array(body.utf8), frameCount: frames) else {
            throw TestFailure("\(body) was forwarded")
        }
        return try JSONParser.parse(reply)
    }

    @Test(
        "the read-only operations replicas use are forwarded unchanged",
        arguments: [
            #"{"op":"snapshot","feed":"cars","chunked":true,"req":1}"#,
            #"{"op":"since","feed":"cars","epoch":"e","seq":4,"req":"x"}"#,
            #"{"op":"status"}"#,
            #"{"op":"plugins","client":"c"}"#,
        ])
    func forwardsReads(_ body: String) {
        #expect(RelayRequestFilter.decide(Array(body.utf8)) == .forward)
    }

    @Test(
        "every other operation is refused with read_only, echoing op, req (as written) and client",
        arguments: [
            "upsert", "delete", "section", "delete_section", "reset", "reset_begin", "reset_append", "reset_commit",
            "select", "reload", "quarantine", "frobnicate",
        ])
    func refusesWrites(_ op: String) throws {
        let text = #"{"op":"\#(op)","feed":"cars","req":123456789012345678,"client":"me"}"#
        guard case .refuse(let bytes) = RelayRequestFilter.decide(Array(text.utf8)) else {
            throw TestFailure("forwarded")
        }
        let reply = String(decoding: bytes, as: UTF8.self)
        #expect(reply.contains(#""req":123456789012345678"#), "\(reply)")
        let json = try JSONParser.parse(bytes)
        #expect(json["ok"] == false)
        #expect(json["op"] == .string(op))
        #expect(json["client"] == "me")
        #expect(json["error"]?["code"] == "read_only")
        #expect(json["error"]?["message"]?.stringValue?.contains("rowcastd's own control endpoint") == true)
    }

    @Test("a body naming op twice is refused, so it cannot look like a read here and be a write upstream")
    func duplicateOp() throws {
        let reply = try Self.refusal(#"{"op":"snapshot","feed":"cars","op":"upsert","req":"a"}"#)
        #expect(reply["error"]?["code"] == "invalid_request")
        #expect(reply["error"]?["field"] == "op")
        #expect(reply["req"] == "a")
    }

    @Test(
        "malformed requests are answered by the relay with rowcastd's codes",
        arguments: [
            (#"{"op":"snapshot","#, "invalid_json"),
            (#"[1,2]"#, "invalid_request"),
            (#"{"feed":"cars"}"#, "missing_field"),
            (#"{"op":7}"#, "invalid_field"),
            ("", "invalid_json"),
        ])
    func malformed(_ body: String, _ code: String) throws {
        #expect(try Self.refusal(body)["error"]?["code"] == .string(code))
    }

    @Test("a request of two frames is refused whole")
    func twoFrames() throws {
        #expect(try Self.refusal(#"{"op":"status"}"#, frames: 2)["error"]?["code"] == "invalid_request")
        #expect(try Self.refusal(#"{"op":"status"}"#, frames: 0)["error"]?["code"] == "invalid_request")
    }

    @Test("the unavailable refusal echoes the request's correlation fields")
    func unavailable() throws {
        let bytes = RelayRequestFilter.refusal(
            of: Array(#"{"op":"since","req":"r9","client":"c"}"#.utf8), code: RelayRequestFilter.unavailableCode, "full"
        )
        let reply = try JSONParser.parse(bytes)
        #expect(reply["error"]?["code"] == "unavailable")
        #expect(reply["req"] == "r9")
        #expect(reply["op"] == "since")
    }
}

/// A test failure with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
