import RowCastJSON
import Testing

/// The compact JSON writer, and parse/write round trips.
@Suite("JSONWriter")
struct JSONWriterTests {
    private func text(_ value: JSONValue) -> String { String(decoding: value.serialized(), as: UTF8.self) }

    @Test(
        "integral numbers print without a fraction",
        arguments: [
            (0.0, "0"), (-0.0, "0"), (1, "1"), (-1, "-1"), (120, "120"), (39999, "39999"), (1e15, "1000000000000000"),
            (9_007_199_254_740_991, "9007199254740991"), (-9_007_199_254_740_991, "-9007199254740991"),
        ])
    func integral(_ number: Double, _ expected: String) {
        #expect(text(.number(number)) == expected)
    }

    @Test(
        "fractional and huge numbers print in shortest round-trip form",
        arguments: [
            (0.5, "0.5"), (-17.25, "-17.25"), (0.1, "0.1"), (39999.5, "39999.5"),
            (0.30000000000000004, "0.30000000000000004"),
            (1e-7, "1e-07"), (.leastNonzeroMagnitude, "5e-324"), (9_007_199_254_740_992, "9007199254740992.0"),
            (1e16, "1e+16"), (1e21, "1e+21"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
        ])
    func fractional(_ number: Double, _ expected: String) throws {
        let written = text(.number(number))
        #expect(written == expected)
        #expect(try JSONParser.parse(written) == .number(number))  // and it is valid JSON
    }

    @Test("non-finite numbers print as null")
    func nonFinite() {
        #expect(text(.number(.infinity)) == "null")
        #expect(text(.number(-.infinity)) == "null")
        #expect(text(.number(.nan)) == "null")
    }

    @Test("integers print exactly, including the extremes")
    func integers() {
        var writer = JSONWriter()
        writer.write(integer: .min)
        writer.writeRaw(",")
        writer.write(integer: .max)
        writer.writeRaw(",")
        writer.write(integer: 0)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "-9223372036854775808,9223372036854775807,0")
    }

    @Test("strings escape quotes, backslashes and control characters only")
    func escapes() {
        #expect(text("plain") == #""plain""#)
        #expect(text("a\"b\\c/d") == #""a\"b\\c/d""#)
        #expect(text("\n\r\t\u{08}\u{0C}\u{0}\u{1F}") == #""\n\r\t\u0008\u000c\u0000\u001f""#)
        #expect(text("é中😀\u{7F}\u{2028}") == "\"é中😀\u{7F}\u{2028}\"")
        #expect(text("") == #""""#)
    }

    @Test("objects keep member order and arrays their elements")
    func containers() {
        let value: JSONValue = ["z": 1, "a": [true, false, nil], "m": ["nested": "x"], "e": [:], "l": []]
        #expect(text(value) == #"{"z":1,"a":[true,false,null],"m":{"nested":"x"},"e":{},"l":[]}"#)
    }

    @Test("writeRaw appends bytes untouched")
    func raw() {
        var writer = JSONWriter(capacity: 4)
        writer.writeRaw("[")
        writer.writeRaw(Array(#"{"cell":"X"}"#.utf8))
        writer.writeRaw("]")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"[{"cell":"X"}]"#)
    }

    @Test(
        "parse then write gives back the same compact text",
        arguments: [
            #"{"id":"p1","type":"product","section":"cars","sort":1,"data":{"name":"Tesla","price":39999.5}}"#,
            #"[null,true,false,0,-1,0.25,"a\"b","\u0001",{"":[]},[[[]]]]"#,
            #""😀 \\ /""#,
            #"{"a":1,"a":2}"#,
        ])
    func roundTrip(_ text: String) throws {
        let value = try JSONParser.parse(text)
        #expect(String(decoding: value.serialized(), as: UTF8.self) == text)
        #expect(try JSONParser.parse(value.serialized()) == value)
    }

    @Test(
        "every string survives a write and a parse",
        arguments: [
            "", "quote\"", "back\\slash", "nul\u{0}byte", "\u{1}\u{2}\u{1F}", "tab\tnew\nline", "ümlaut", "𝄞😀",
            "\u{FFFF}\u{10FFFF}", "\u{7F}",
        ])
    func stringRoundTrip(_ string: String) throws {
        #expect(try JSONParser.parse(JSONValue.string(string).serialized()) == .string(string))
    }

    /// The escaping the writer must produce, written another way (scalar by scalar) so that it
    /// shares nothing with the word-at-a-time scan under test.
    private static func referenceQuoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test(
        "each special byte at every offset of strings of 0 to 24 letters, alone and beside multi-byte characters",
        arguments: [
            "\"", "\\", "\n", "\u{0}", "\u{1F}", "\t", "é", "😀", "\u{7F}", "é\"", "\\😀", "\u{1}中",
        ])
    func escapesAtEveryOffset(inserted: String) {
        for count in 0...24 {
            for offset in 0...count {
                let letters = (0..<count).map { Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8($0 % 26))) }
                var string = String(letters)
                string.insert(contentsOf: inserted, at: string.index(string.startIndex, offsetBy: offset))
                #expect(text(.string(string)) == Self.referenceQuoted(string), "count \(count), offset \(offset)")
            }
        }
    }

    @Test("plain strings of 0 to 40 bytes, as keys and values, are written and parsed back byte for byte")
    func plainStringsOfEveryLength() throws {
        // Every byte differs from the others, so a byte copied to the wrong place shows.
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        for count in 0...40 {
            let string = String(alphabet[0..<count])
            let value: JSONValue = [string: .string(string), "k": .string(string + "é")]
            let written = text(value)
            #expect(written == "{\"\(string)\":\"\(string)\",\"k\":\"\(string)é\"}")
            let parsed = try JSONParser.parse(written)
            #expect(parsed.objectValue?.entries.first?.key == string)
            #expect(parsed[string] == .string(string))
            #expect(parsed["k"] == .string(string + "é"))
        }
    }

    @Test("integers of every length print as Swift prints them")
    func integersOfEveryLength() {
        var value: Int64 = 1
        for _ in 0..<19 {
            for candidate in [value, value - 1, value + 7, -value, -(value - 1), -(value + 7)] {
                var writer = JSONWriter(capacity: 0)
                writer.writeRaw("[")
                writer.write(integer: candidate)
                writer.writeRaw("]")
                #expect(String(decoding: writer.bytes, as: UTF8.self) == "[\(candidate)]")
            }
            value = value &* 10
        }
    }
}
