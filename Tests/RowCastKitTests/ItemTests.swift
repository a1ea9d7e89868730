import RowCastKit
import Testing

/// The item view and its typed accessors: every error names the field.
@Suite("Item")
struct ItemTests {
    private static let json =
        #"{"id":"p1","type":"product","section":"cars","sort":3,"data":{"name":"Tesla","price":39999.5,"count":3,"new":true,"url":"https://x.example/a?b=c","notes":null,"tags":["a"],"spec":{"hp":300}}}"#

    private func item(_ text: String = ItemTests.json) throws -> Item {
        try Item(json: try JSONParser.parse(text))
    }

    /// The error `body` throws, or `nil`.
    private func failure<T>(_ body: () throws(ItemError) -> T) -> ItemError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("the envelope is read once")
    func envelope() throws {
        let item = try item()
        #expect(item.id == "p1")
        #expect(item.type == "product")
        #expect(item.section == "cars")
        #expect(item.sort == 3)
        #expect(item.data["name"] == "Tesla")
        #expect(item.json["id"] == "p1")
        let minimal = try self.item(#"{"id":"x","type":"t"}"#)
        #expect(minimal.section == "default")
        #expect(minimal.sort == nil)
        #expect(minimal.data.isEmpty)
    }

    @Test("typed accessors return the values")
    func accessors() throws {
        let item = try item()
        #expect(try item.string("name") == "Tesla")
        #expect(try item.number("price") == 39999.5)
        #expect(try item.integer("count") == 3)
        #expect(try item.bool("new"))
        #expect(try item.url("url") == "https://x.example/a?b=c")
        #expect(try item.array("tags") == ["a"])
        #expect(try item.object("spec") == ["hp": 300])
        #expect(try item.value("notes") == .null)
        #expect(try item.optionalString("notes") == nil)
        #expect(try item.optionalString("absent") == nil)
        #expect(try item.optionalString("name") == "Tesla")
        #expect(try item.optionalNumber("absent") == nil)
        #expect(try item.optionalNumber("price") == 39999.5)
        #expect(try item.optionalInteger("count") == 3)
        #expect(try item.optionalBool("new") == true)
        #expect(try item.optionalURL("notes") == nil)
        #expect(item.optionalValue("notes") == nil)
        #expect(item.optionalValue("name") == "Tesla")
    }

    @Test("a missing field is missing_field, naming it")
    func missingField() throws {
        let item = try item()
        let error = failure { () throws(ItemError) in try item.number("cost") }
        #expect(error == ItemError(code: .missingField, field: "cost", message: #"missing field "cost""#))
        #expect(failure { () throws(ItemError) in try item.string("absent") }?.message == #"missing field "absent""#)
        #expect(failure { () throws(ItemError) in try item.url("absent") }?.code == .missingField)
    }

    @Test(
        "a mistyped field is invalid_field, naming it and both types",
        arguments: [
            ("price", "string", #"field "price" must be a string, got number"#),
            ("name", "number", #"field "name" must be a number, got string"#),
            ("notes", "number", #"field "notes" must be a number, got null"#),
            ("tags", "bool", #"field "tags" must be a boolean, got array"#),
            ("spec", "array", #"field "spec" must be an array, got object"#),
            ("new", "object", #"field "new" must be an object, got boolean"#),
            ("price", "integer", #"field "price" must be an integer, got 39999.5"#),
            ("name", "optionalNumber", #"field "name" must be a number, got string"#),
            ("name", "url", #"field "name" must be a URL with a scheme such as https://, got "Tesla""#),
        ])
    func invalidField(field: String, accessor: String, message: String) throws {
        let item = try item()
        let error = failure { () throws(ItemError) -> Any in
            switch accessor {
            case "string": return try item.string(field)
            case "number": return try item.number(field)
            case "bool": return try item.bool(field)
            case "array": return try item.array(field)
            case "object": return try item.object(field)
            case "integer": return try item.integer(field)
            case "optionalNumber": return try item.optionalNumber(field) as Any
            default: return try item.url(field)
            }
        }
        #expect(error == ItemError(code: .invalidField, field: field, message: message))
    }

    @Test(
        "URL-ish strings",
        arguments: [
            ("https://example.com", true), ("myapp:detail/1", true), ("mailto:a@b.c", true), ("x-y.z+w://q", true),
            ("", false), ("example.com", false), (":nothing", false), ("1http://x", false), ("https://", true),
            ("https:", false), ("https://a b", false), ("ht tp://x", false), ("https://x\n", false),
        ])
    func urls(_ string: String, _ valid: Bool) throws {
        let item = try Item(json: ["id": "i", "type": "t", "data": ["u": .string(string)]])
        #expect(Item.looksLikeURL(string) == valid, "\(string)")
        let scheme = URLCheck.scheme(of: string).map { Set([$0]) } ?? []
        #expect((failure { () throws(ItemError) in try item.url("u", schemes: scheme) } == nil) == valid, "\(string)")
    }

    @Test(
        "a URL field takes http and https unless the plugin names other schemes",
        arguments: [
            ("https://example.com", true, true), ("HTTP://example.com", true, true),
            ("javascript:alert(1)", false, false),
            ("JavaScript:alert(1)", false, false), ("data:text/html,x", false, false), ("vbscript:x", false, false),
            ("mailto:a@b.c", false, true), ("myapp:detail/1", false, true),
        ])
    func urlSchemes(_ string: String, _ web: Bool, _ named: Bool) throws {
        let item = try Item(json: ["id": "i", "type": "t", "data": ["u": .string(string)]])
        let error = failure { () throws(ItemError) in try item.url("u") }
        #expect((error == nil) == web, "\(string)")
        if let error { #expect(error.message.contains("http or https"), "\(error.message)") }
        #expect(failure { () throws(ItemError) in try item.optionalURL("u") } == error)
        let schemes: Set<String> = ["http", "https", "mailto", "myapp"]
        #expect((failure { () throws(ItemError) in try item.url("u", schemes: schemes) } == nil) == named, "\(string)")
    }

    @Test(
        "a malformed envelope names the envelope field",
        arguments: [
            (#"{"type":"t"}"#, ItemError(code: .missingField, field: "id", message: #"missing field "id""#)),
            (
                #"{"id":1,"type":"t"}"#,
                ItemError(code: .invalidField, field: "id", message: #"field "id" must be a string, got number"#)
            ),
            (#"{"id":"i"}"#, ItemError(code: .missingField, field: "type", message: #"missing field "type""#)),
            (
                #"{"id":"i","type":"t","section":7}"#,
                ItemError(
                    code: .invalidField, field: "section", message: #"field "section" must be a string, got number"#)
            ),
            (
                #"{"id":"i","type":"t","sort":"1"}"#,
                ItemError(code: .invalidField, field: "sort", message: #"field "sort" must be a number, got string"#)
            ),
            (
                #"{"id":"i","type":"t","data":[]}"#,
                ItemError(code: .invalidField, field: "data", message: #"field "data" must be an object, got array"#)
            ),
            (#"[]"#, ItemError(code: .invalidInput, message: "an item must be a JSON object, got array")),
        ])
    func badEnvelope(text: String, expected: ItemError) throws {
        let value = try JSONParser.parse(text)
        #expect(failure { () throws(ItemError) in try Item(json: value) } == expected)
    }

    @Test("no other text equals an envelope field name, so a key of another length is never one")
    func envelopeNamesHaveOneSpelling() {
        // A text canonically equivalent to a name has the name's letters as its decomposition, so
        // it could differ from the name only by a scalar equivalent to one of those letters, as
        // the Kelvin sign is to "K" (which shows the check below would catch one).
        #expect(Set(["K"]).contains("\u{212A}"))
        let letters = Set("idtypesectiondatasort".map { String($0) })
        var equivalents: [UInt32] = []
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if letters.contains(String(Character(scalar))) { equivalents.append(value) }
        }
        #expect(equivalents.isEmpty)
    }

    /// What `Item(object:)` gives for `object` when each envelope field is looked up by name
    /// (the last member of that name), in the order the item checks them.
    private static func lookedUp(_ object: JSONObject) -> Result<[JSONValue?], ItemError> {
        guard let id = object["id"] else { return .failure(.missingField("id")) }
        guard case .string = id else { return .failure(.invalidField("id", mustBe: "a string", got: id)) }
        guard let type = object["type"] else { return .failure(.missingField("type")) }
        guard case .string = type else { return .failure(.invalidField("type", mustBe: "a string", got: type)) }
        var section = JSONValue.string("default")
        if let value = object["section"], !value.isNull {
            guard case .string = value else {
                return .failure(.invalidField("section", mustBe: "a string", got: value))
            }
            section = value
        }
        var sort: JSONValue? = nil
        if let value = object["sort"], !value.isNull {
            guard case .number = value else { return .failure(.invalidField("sort", mustBe: "a number", got: value)) }
            sort = value
        }
        var data = JSONValue.object(JSONObject())
        if let value = object["data"], !value.isNull {
            guard case .object = value else { return .failure(.invalidField("data", mustBe: "an object", got: value)) }
            data = value
        }
        return .success([id, type, section, sort, data])
    }

    @Test("the envelope is what lookups by name find, over 20,000 objects of random keys")
    func envelopeMatchesLookups() {
        // Names, near misses of every length, and texts that are not ASCII or equal a name only
        // canonically ("é" both ways).
        let keys = [
            "id", "type", "section", "sort", "data", "ID", "i", "idd", "typ", "types", "Type", "sectio", "sections",
            "date", "dat", "sorts", "name", "\u{212A}", "i\u{301}d", "d\u{0}", "t\u{443}pe", "\u{E9}", "e\u{301}", "  ",
            "",
        ]
        let values: [JSONValue] = [.string("a"), .string("b"), 1, 2.5, .null, ["x": 1], [], true]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for round in 0..<20_000 {
            var members: [(key: String, value: JSONValue)] = []
            for _ in 0..<next(9) { members.append((key: keys[next(keys.count)], value: values[next(values.count)])) }
            // Most rounds get a valid id and type somewhere, so the later checks are reached too.
            if next(4) > 0 { members.insert((key: "id", value: "i"), at: next(members.count + 1)) }
            if next(4) > 0 { members.insert((key: "type", value: "t"), at: next(members.count + 1)) }
            let object = JSONObject(members)
            let made = Result { () throws(ItemError) in try Item(object: object) }
                .map { item -> [JSONValue?] in
                    [
                        .string(item.id), .string(item.type), .string(item.section), item.sort.map { .number($0) },
                        .object(item.data),
                    ]
                }
            #expect(made == Self.lookedUp(object), "round \(round): \(JSONValue.object(object))")
        }
    }

    @Test("invalid JSON bytes are an item error")
    func invalidBytes() {
        let bytes = Array(#"{"id":"#.utf8)
        let error = bytes.withUnsafeBytes { raw in failure { () throws(ItemError) in try Item(parsing: raw) } }
        #expect(
            error
                == ItemError(
                    code: .invalidInput, message: "the item is not valid JSON: unexpected end of input at byte 6"))
    }

    @Test("an item error crosses the ABI as {message, field, code}")
    func errorJSON() {
        #expect(
            ItemError.missingField("price").jsonValue.description
                == #"{"message":"missing field \"price\"","field":"price","code":"missing_field"}"#)
        #expect(
            ItemError(code: .invalidInput, message: "bad").jsonValue.description
                == #"{"message":"bad","code":"invalid_input"}"#)
        #expect(ItemError.unknownAction("buy").description == #"unknown action "buy""#)
    }

    @Test("section headers read the header object")
    func sectionHeader() throws {
        let header = try SectionHeader(
            json: try JSONParser.parse(#"{"id":"cars","type":"brand","order":2,"header":{"title":"Cars"}}"#))
        #expect(header.id == "cars")
        #expect(header.type == "brand")
        #expect(header.order == 2)
        #expect(try header.string("title") == "Cars")
        #expect(failure { () throws(ItemError) in try header.string("subtitle") } == .missingField("subtitle"))
        let bare = try SectionHeader(json: ["id": "s", "type": "t"])
        #expect(bare.header.isEmpty)
        #expect(
            failure { () throws(ItemError) in try SectionHeader(json: ["id": "s", "type": "t", "header": 1]) }?.field
                == "header")
    }
}
