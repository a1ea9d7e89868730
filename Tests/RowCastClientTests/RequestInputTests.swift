import RowCastClient
import RowCastJSON
import Testing

/// Building items from `key=value` flags and reading request files (JSON, arrays, NDJSON).
@Suite struct RequestInputTests {
    @Test(arguments: [
        ("39999", JSONValue.number(39999)),
        ("-1.5", .number(-1.5)),
        ("true", .bool(true)),
        ("null", .null),
        ("[1,\"a\"]", JSONValue.array([1, "a"])),
        ("{\"k\":1}", JSONValue.object(["k": 1])),
        ("\"42\"", .string("42")),
        ("Tesla", .string("Tesla")),
        ("Model 3", .string("Model 3")),
        ("12abc", .string("12abc")),
        ("nullable", .string("nullable")),
        ("", .string("")),
        ("a=b", .string("a=b")),
    ])
    func fieldValuesAreJSONWhenTheyParseAndStringsOtherwise(text: String, expected: JSONValue) {
        #expect(ItemBuilder.value(of: text) == expected)
    }

    @Test func itemFromFlags() throws {
        var builder = ItemBuilder(id: "42", type: "product", section: "used", sort: 3)
        try builder.addField("name=Tesla")
        try builder.addField("price=39999")
        try builder.addField("query=a=b")
        try builder.addField("sku=0042", forceString: true)
        try builder.addField("price=100")
        #expect(
            builder.item.description
                == #"{"id":"42","type":"product","section":"used","sort":3,"data":{"name":"Tesla","price":100,"query":"a=b","sku":"0042"}}"#
        )
        #expect(ItemBuilder(id: "1", type: "t").item.description == #"{"id":"1","type":"t","data":{}}"#)
    }

    @Test(arguments: ["price", "=5", ""])
    func fieldsWithoutAKeyAreRefused(assignment: String) {
        var builder = ItemBuilder(id: "1", type: "t")
        let error = #expect(throws: RowCastClientError.self) { try builder.addField(assignment) }
        #expect(error?.code == "invalid_field")
        #expect(error?.message.contains("key=value") == true)
    }

    @Test func ndjsonMixesRequestsAndBareItems() throws {
        let text = """
            {"op":"upsert","feed":"boats","item":{"id":"1","type":"boat"}}
            {"id":"42","type":"product","data":{"price":1}}

            {"op":"delete","id":"7"}
            {"op":"status"}\r
            """
        let requests = try RequestReader(source: "items.ndjson", defaultFeed: "cars").requests(from: text)
        #expect(
            requests.map(\.description) == [
                #"{"op":"upsert","feed":"boats","item":{"id":"1","type":"boat"}}"#,
                #"{"op":"upsert","feed":"cars","item":{"id":"42","type":"product","data":{"price":1}}}"#,
                #"{"op":"delete","id":"7","feed":"cars"}"#,
                #"{"op":"status"}"#,
            ])
    }

    @Test func ndjsonLinesEndAtLineFeedsOnly() throws {
        // CRLF line ends, a raw U+2028 and U+0085 inside strings (not line breaks in NDJSON),
        // a line of Unicode spaces skipped as blank, and the line numbers errors name.
        let text =
            "{\"id\":\"1\",\"type\":\"t\",\"data\":{\"s\":\"a\u{2028}b\u{85}c\"}}\r\n\u{A0}\u{3000}\r\n{\"op\":\"delete\",\"id\":\"2\"}\r\n"
        let reader = RequestReader(source: "items.ndjson", defaultFeed: "cars")
        #expect(
            try reader.requests(from: text) == [
                [
                    "op": "upsert", "feed": "cars",
                    "item": ["id": "1", "type": "t", "data": ["s": "a\u{2028}b\u{85}c"]],
                ],
                ["op": "delete", "id": "2", "feed": "cars"],
            ])
        let broken = #expect(throws: RowCastClientError.self) {
            try reader.requests(
                from: "{\"id\":\"1\",\"type\":\"t\"}\r\n\r\n{\"id\":\"2\",\"type\":\"t\"}\r\n{oops}\r\n")
        }
        #expect(broken?.message.hasPrefix("items.ndjson line 4: ") == true, "\(broken.map { "\($0)" } ?? "")")
    }

    @Test func oneObjectAndArraysAreReadWhole() throws {
        let reader = RequestReader(source: "stdin", defaultFeed: "cars")
        let pretty = """
            {
              "op": "reset",
              "items": [{"id": "1", "type": "t"}]
            }
            """
        #expect(
            try reader.requests(from: pretty) == [
                ["op": "reset", "items": [["id": "1", "type": "t"]], "feed": "cars"]
            ])
        let array = #"[{"id":"1","type":"t"}, {"op":"delete","feed":"x","id":"2"}]"#
        #expect(
            try reader.requests(from: array) == [
                ["op": "upsert", "feed": "cars", "item": ["id": "1", "type": "t"]],
                ["op": "delete", "feed": "x", "id": "2"],
            ])
    }

    @Test func badLinesAreNamed() throws {
        let reader = RequestReader(source: "items.ndjson", defaultFeed: "cars")
        let broken = #expect(throws: RowCastClientError.self) {
            try reader.requests(from: "{\"id\":\"1\",\"type\":\"t\"}\n{\"id\":\n")
        }
        #expect(broken?.code == "invalid_json")
        #expect(broken?.message.hasPrefix("items.ndjson line 2: ") == true)

        let notObject = #expect(throws: RowCastClientError.self) {
            try reader.requests(from: "{\"op\":\"status\"}\n[1]\n")
        }
        #expect(notObject?.code == "invalid_request")
        #expect(
            notObject?.message
                == "items.ndjson line 2: a JSON array is neither a request nor an item (expected an object)")

        let noFeed = #expect(throws: RowCastClientError.self) {
            try RequestReader(source: "stdin").requests(from: #"{"id":"1","type":"t"}"#)
        }
        #expect(noFeed?.code == "missing_field")
        #expect(noFeed?.message == #"stdin: an item without "op" needs --feed to say which feed it goes to"#)

        let empty = #expect(throws: RowCastClientError.self) { try reader.requests(from: " \n\n") }
        #expect(empty?.code == "invalid_request")

        let garbage = #expect(throws: RowCastClientError.self) { try reader.requests(from: "hello\nworld") }
        #expect(garbage?.code == "invalid_json")
        #expect(garbage?.message.hasPrefix("items.ndjson: ") == true)
    }
}
