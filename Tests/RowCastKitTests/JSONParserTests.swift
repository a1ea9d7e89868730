import RowCastJSON
import Testing

/// The strict JSON parser: what it accepts, what it refuses and where.
@Suite("JSONParser")
struct JSONParserTests {
    private func parse(_ text: String) throws(JSONParseError) -> JSONValue { try JSONParser.parse(text) }

    private func parse(bytes: [UInt8]) throws(JSONParseError) -> JSONValue { try JSONParser.parse(bytes) }

    /// The error for `bytes`, or `nil` when they parse.
    private func error(_ bytes: [UInt8]) -> JSONParseError? {
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    private func error(_ text: String) -> JSONParseError? { error(Array(text.utf8)) }

    @Test("scalars and containers parse to the right values")
    func parsesValues() throws {
        #expect(try parse("null") == .null)
        #expect(try parse("true") == .bool(true))
        #expect(try parse("false") == .bool(false))
        #expect(try parse("0") == .number(0))
        #expect(try parse("-0") == .number(-0.0))
        #expect(try parse("42") == .number(42))
        #expect(try parse("-17.25") == .number(-17.25))
        #expect(try parse("1e3") == .number(1000))
        #expect(try parse("1E+2") == .number(100))
        #expect(try parse("25e-1") == .number(2.5))
        #expect(try parse("0.5") == .number(0.5))
        #expect(try parse("\"\"") == .string(""))
        #expect(try parse("[]") == .array([]))
        #expect(try parse("{}") == .object(JSONObject()))
        #expect(
            try parse(#" { "a" : [ 1 , { "b" : null } ] , "c" : "d" } "#)
                == ["a": [1, ["b": nil]], "c": "d"])
        #expect(try parse(" \t\r\n 7 \n") == .number(7))
    }

    @Test("numbers keep their value: exact integers, 15+ digits, extremes")
    func parsesNumbers() throws {
        #expect(try parse("999999999999999") == .number(999_999_999_999_999))
        #expect(try parse("9007199254740993") == .number(9_007_199_254_740_992))  // nearest double
        #expect(try parse("12345678901234567890") == .number(12_345_678_901_234_567_168))  // nearest double
        #expect(try parse("-9223372036854775808") == .number(-9_223_372_036_854_775_808))
        #expect(try parse("0.1") == .number(0.1))
        #expect(try parse("1.7976931348623157e308") == .number(.greatestFiniteMagnitude))
        #expect(try parse("5e-324") == .number(.leastNonzeroMagnitude))
        #expect(try parse("1e-400") == .number(0))
        #expect(error("1e400")?.reason == "number out of range")
        #expect(error("-1e400")?.reason == "number out of range")
    }

    @Test(
        "malformed numbers are refused",
        arguments: [
            "01", "-01", "00", "1.", ".5", "+1", "-", "--1", "1e", "1e+", "1.e5", "0x10", "NaN", "Infinity",
            "-Infinity", "1_000",
        ])
    func refusesMalformedNumbers(_ text: String) {
        #expect(error(text) != nil, "\(text) must not parse")
    }

    @Test("a leading zero is reported as such")
    func leadingZero() {
        #expect(error("01") == JSONParseError(offset: 1, reason: "leading zero in a number"))
        #expect(error("[-012]") == JSONParseError(offset: 3, reason: "leading zero in a number"))
    }

    @Test("escapes decode")
    func decodesEscapes() throws {
        #expect(try parse(#""\" \\ \/ \b \f \n \r \t""#) == .string("\" \\ / \u{08} \u{0C} \n \r \t"))
        #expect(try parse(#""\u0041\u00e9\u4E2D\u0000""#) == .string("Aé中\u{0}"))
        #expect(try parse(#""plain then \n escape""#) == .string("plain then \n escape"))
        #expect(try parse(#"{"k\ney":1}"#) == ["k\ney": 1])
    }

    @Test("unicode: raw UTF-8 and surrogate pairs")
    func unicode() throws {
        #expect(try parse("\"héllo wörld 中文 😀\"") == .string("héllo wörld 中文 😀"))
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try parse(#""\uD834\uDD1E clef""#) == .string("𝄞 clef"))
        #expect(try parse(#""x\uDBFF\uDFFFy""#) == .string("x\u{10FFFF}y"))
    }

    @Test(
        "lone and broken surrogates are refused",
        arguments: [
            #""\ud83d""#, #""\ud83dx""#, #""\ud83d\u0041""#, #""\ude00""#, #""\ud83d\ud83d""#, #""\ud83d\n""#,
        ])
    func refusesBadSurrogates(_ text: String) {
        #expect(error(text) != nil, "\(text) must not parse")
    }

    @Test(
        "invalid UTF-8 is refused, in fast and escaped strings",
        arguments: [
            [0x22, 0xC3, 0x28, 0x22],  // bad continuation
            [0x22, 0xC0, 0x80, 0x22],  // overlong NUL
            [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong '/'
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-8-encoded surrogate
            [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xFF, 0x22],  // never valid
            [0x22, 0xE2, 0x82, 0x22],  // truncated sequence
            [0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22],  // after an escape: slow path
            [0xFF],  // outside a string
            [0x5B, 0x31, 0x5D, 0xFF],  // after the value
        ] as [[UInt8]])
    func refusesBadUTF8(_ bytes: [UInt8]) {
        #expect(error(bytes) != nil, "\(bytes) must not parse")
    }

    @Test("invalid UTF-8 in a string reports where the string starts")
    func badUTF8Offset() {
        #expect(
            error([0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D])
                == JSONParseError(offset: 2, reason: "invalid UTF-8 in a string"))
    }

    @Test("control characters in strings are refused", arguments: [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F] as [UInt8])
    func refusesControlCharacters(_ byte: UInt8) {
        #expect(error([0x22, 0x61, byte, 0x22])?.reason == "control character in a string")
        #expect(error([0x22, 0x5C, 0x6E, byte, 0x22])?.reason == "control character in a string")
    }

    @Test("DEL and other high ASCII are fine in strings")
    func allowsDelete() throws {
        #expect(try parse(bytes: [0x22, 0x7F, 0x22]) == .string("\u{7F}"))
    }

    @Test(
        "trailing garbage is refused",
        arguments: ["{} x", "1 2", "[1],", "truefalse", "nullx", "\"a\"\"b\"", "{}}", "[]]", "0 0"])
    func refusesTrailingGarbage(_ text: String) {
        #expect(error(text)?.reason == "unexpected data after the JSON value", "\(text)")
    }

    @Test(
        "truncated input is refused",
        arguments: [
            "", " ", "{", "[", "{\"a\"", "{\"a\":", "{\"a\":1", "{\"a\":1,", "[1,", "[1", "\"abc", "\"\\", "\"\\u12",
            "\"\\u12\"", "tru", "fals", "nul", "-", "1e",
        ])
    func refusesTruncatedInput(_ text: String) {
        #expect(error(text) != nil, "\(text) must not parse")
    }

    @Test(
        "syntax errors are refused",
        arguments: [
            "[1,]", "{\"a\":1,}", "{a:1}", "{'a':1}", "['a']", "[1 2]", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "{1:2}",
            "// comment\n1", "True", "NULL", "\"\\x41\"", "\"\\U0041\"", "\u{FEFF}1", "\u{0C}1", "[,1]", ":", "}",
        ])
    func refusesSyntaxErrors(_ text: String) {
        #expect(error(text) != nil, "\(text) must not parse")
    }

    @Test("nesting up to 64 levels parses; 65 is refused without a crash")
    func nestingLimit() throws {
        #expect(JSONParser.maximumDepth == 64)
        let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser.parse(deepest) }
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(error(tooDeep) == JSONParseError(offset: 64, reason: "nesting deeper than 64 levels"))
        let mixed = String(repeating: "{\"a\":[", count: 33) + String(repeating: "]}", count: 33)
        #expect(error(mixed)?.reason == "nesting deeper than 64 levels")
        let hostile = String(repeating: "[", count: 100_000)
        #expect(error(hostile)?.reason == "nesting deeper than 64 levels")
        // Depth is released on the way out: many shallow siblings are fine.
        let siblings =
            "["
            + Array(repeating: String(repeating: "[", count: 63) + String(repeating: "]", count: 63), count: 3).joined(
                separator: ",") + "]"
        #expect(throws: Never.self) { try JSONParser.parse(siblings) }
    }

    @Test("a repeated key: the last one wins, both are kept in order")
    func repeatedKeys() throws {
        let value = try parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(value["a"] == 3)
        #expect(value.objectValue?.count == 3)
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(value == ["b": 2, "a": 3])
    }

    @Test("errors say where")
    func errorOffsets() {
        #expect(error("[1, x]") == JSONParseError(offset: 4, reason: "unexpected character 'x'"))
        #expect(error("{\"a\" 1}") == JSONParseError(offset: 5, reason: "expected ':' after an object key"))
        #expect(error("\"ab") == JSONParseError(offset: 3, reason: "unterminated string"))
        #expect(error("") == JSONParseError(offset: 0, reason: "unexpected end of input"))
        #expect(error("[1] x")?.description == "unexpected data after the JSON value at byte 4")
        #expect(error([0x01])?.reason == "unexpected character '0x1'")
    }
}
