import RowCastJSON
import Testing

/// Strings are scanned eight bytes at a time: whatever byte needs a look (an escape, a control
/// character, a byte that is not ASCII, valid or not) is found at every offset within and across
/// the eight-byte words, both when a string is made and when it is only skipped.
@Suite("JSON string scanning")
struct JSONStringScanTests {
    /// `count` ASCII letters with `inserted` at `offset`, as the bytes of a JSON string.
    static func string(count: Int, inserting inserted: [UInt8], at offset: Int) -> [UInt8] {
        var body = (0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        body.insert(contentsOf: inserted, at: offset)
        return [UInt8(ascii: "\"")] + body + [UInt8(ascii: "\"")]
    }

    /// The string made from `bytes`, and whether skipping it inside an object also succeeds.
    static func outcomes(_ bytes: [UInt8]) -> (made: String?, skipped: Bool) {
        let made: String?
        if case .string(let text)? = try? JSONParser.parse(bytes) { made = text } else { made = nil }
        let object = Array(#"{"k":"#.utf8) + bytes + Array("}".utf8)
        let skipped =
            (try? JSONParser.read(object) { reader -> Bool in
                try reader.beginObject()
                while try reader.nextKey() != nil { try reader.skipValue() }
                return true
            }) ?? false
        return (made, skipped)
    }

    @Test(
        "every offset of 0 to 24 in strings of 0 to 24 letters",
        arguments: [
            (Array(#"\""#.utf8), "\""), (Array(#"\\"#.utf8), "\\"), (Array(#"\u00e9"#.utf8), "é"),
            ([0xC3, 0xA9], "é"), ([0xE2, 0x82, 0xAC], "€"), ([0x7F], "\u{7F}"),
        ] as [([UInt8], String)])
    func acceptsAtEveryOffset(inserted: [UInt8], meaning: String) {
        for count in 0...24 {
            for offset in 0...count {
                let letters = (0..<count).map { Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8($0 % 26))) }
                var expected = String(letters)
                expected.insert(contentsOf: meaning, at: expected.index(expected.startIndex, offsetBy: offset))
                let outcome = Self.outcomes(Self.string(count: count, inserting: inserted, at: offset))
                #expect(outcome.made == expected, "count \(count), offset \(offset)")
                #expect(outcome.skipped, "count \(count), offset \(offset)")
            }
        }
    }

    @Test(
        "refused at every offset: control characters, invalid UTF-8, a bad escape",
        arguments: [
            [0x00], [0x1F], [0x0A], [0xFF], [0xC3, 0x28], [0xED, 0xA0, 0x80], Array(#"\x"#.utf8),
        ] as [[UInt8]])
    func refusesAtEveryOffset(inserted: [UInt8]) {
        for count in 0...24 {
            for offset in 0...count {
                let outcome = Self.outcomes(Self.string(count: count, inserting: inserted, at: offset))
                #expect(outcome.made == nil, "count \(count), offset \(offset)")
                #expect(!outcome.skipped, "count \(count), offset \(offset)")
            }
        }
    }

    @Test("a string without its closing quote is refused at any length")
    func unterminated() {
        for count in 0...24 {
            let bytes = Array(Self.string(count: count, inserting: [], at: 0).dropLast())
            #expect(Self.outcomes(bytes).made == nil)
            #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
        }
    }
}
