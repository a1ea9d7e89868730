import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastWire
import RowCastJSON
import Testing

struct RequestDecoderTests {
    let decoder = RequestDecoder()

    func decodeError(_ json: String, channel: RequestDecoder.Channel = .control) -> RowCastError? {
        if case .failure(let error, _, _, _) = decoder.decode(Array(json.utf8), from: channel) { return error }
        return nil
    }

    @Test("a full upsert decodes every field")
    func upsertDecodes() throws {
        let json =
            #"{"op":"upsert","feed":"cars","req":"r1","client":"c","item":{"id":"42","type":"product","section":"new","sort":1.5,"data":{"name":"Tesla"}}}"#
        guard case .request(let request) = decoder.decode(Array(json.utf8), from: .ingest) else {
            Issue.record("did not decode")
            return
        }
        #expect(request.feed == "cars")
        #expect(request.req == RequestID(json: #""r1""#))
        #expect(request.client == "c")
        guard case .upsert(let item) = request.operation else {
            Issue.record("not an upsert")
            return
        }
        #expect(item == ItemInput(id: "42", type: "product", section: "new", sort: 1.5, data: ["name": "Tesla"]))
    }

    @Test(
        "errors name the field and the problem",
        arguments: [
            (#"{"op":"upsert","feed":"cars"}"#, "missing_field", "item"),
            (#"{"op":"upsert","feed":"cars","item":{"id":42,"type":"product"}}"#, "invalid_field", "item.id"),
            (#"{"op":"upsert","feed":"cars","item":{"id":"","type":"product"}}"#, "invalid_field", "item.id"),
            (#"{"op":"upsert","feed":"cars","item":{"id":"1","type":"pro duct"}}"#, "invalid_field", "item.type"),
            (
                #"{"op":"upsert","feed":"cars","item":{"id":"1","type":"p","sort":"high"}}"#, "invalid_field",
                "item.sort"
            ),
            (#"{"op":"upsert","feed":"cars","item":{"id":"1","type":"p","data":[]}}"#, "invalid_field", "item.data"),
            (
                #"{"op":"upsert","feed":"cars","item":{"id":"1","type":"p","colour":"red"}}"#, "invalid_field",
                "item.colour"
            ),
            (#"{"op":"upsert","feed":"","item":{"id":"1","type":"p"}}"#, "invalid_field", "feed"),
            (#"{"op":7}"#, "invalid_field", "op"),
            (#"{"op":"delete","feed":"cars"}"#, "missing_field", "id"),
            (#"{"op":"reset","feed":"cars","items":[1]}"#, "invalid_field", "items[0]"),
            (#"{"op":"reset","feed":"cars"}"#, "missing_field", "items"),
            (#"{"op":"section","feed":"cars","section":{"id":"s","order":"first"}}"#, "invalid_field", "section.order"),
            (#"{"op":"status","req":{"a":1}}"#, "invalid_field", "req"),
            // U+0000 in a stored key (the store would end the text there: two ids, one row).
            (#"{"op":"upsert","feed":"cars","item":{"id":"a\u0000b","type":"p"}}"#, "invalid_field", "item.id"),
            (
                #"{"op":"upsert","feed":"cars","item":{"id":"1","type":"p","section":"s\u0000"}}"#, "invalid_field",
                "item.section"
            ),
            (#"{"op":"section","feed":"cars","section":{"id":"\u0000"}}"#, "invalid_field", "section.id"),
            (#"{"op":"delete","feed":"cars","id":"a\u0000","client":"c","req":1}"#, "invalid_field", "id"),
            (
                #"{"op":"upsert","feed":"cars","client":"c\u0000d","req":1,"item":{"id":"1","type":"p"}}"#,
                "invalid_field", "client"
            ),
        ])
    func fieldErrors(json: String, code: String, field: String) throws {
        let error = try #require(decodeError(json))
        #expect(error.code.rawValue == code)
        #expect(error.field == field)
        #expect(error.message.contains(field))
    }

    @Test("invalid JSON says where")
    func invalidJSON() throws {
        let error = try #require(decodeError(#"{"op":"upsert",}"#))
        #expect(error.code == .invalidJSON)
        #expect(error.message.contains("at byte"))
    }

    @Test("an error keeps the request's req and feed for the reply")
    func correlationSurvives() {
        let outcome = decoder.decode(Array(#"{"op":"delete","feed":"cars","req":9}"#.utf8), from: .control)
        guard case .failure(let error, let op, let req, _) = outcome else {
            Issue.record("decoded")
            return
        }
        #expect(op == "delete")
        #expect(req?.json == "9")
        #expect(error.feed == "cars")
    }

    @Test(
        "req is kept as the exact text sent: big integers, -0 and string escapes",
        arguments: [
            "123456789012345678", "123456789012345679", "-0", "1234567890123456789012345678901234567890",
            #""a\/b\u00e9""#, #""7""#,
        ])
    func exactReq(text: String) throws {
        let json = #"{"op":"status","req":\#(text)}"#
        guard case .request(let request) = decoder.decode(Array(json.utf8), from: .control) else {
            Issue.record("did not decode \(json)")
            return
        }
        #expect(request.req?.json == text)
    }

    @Test(
        "a req with a fraction or an exponent is refused, and echoed as written", arguments: ["1.0", "1e0", "-2.5E3"])
    func nonIntegerReq(text: String) throws {
        let outcome = decoder.decode(Array(#"{"op":"status","req":\#(text)}"#.utf8), from: .control)
        guard case .failure(let error, _, let req, _) = outcome else {
            Issue.record("decoded \(text)")
            return
        }
        #expect(error.code == .invalidField)
        #expect(error.field == "req")
        #expect(req?.json == text)
    }
}
