import RowCastJSON
import Testing

struct UTF8ValidationTests {
    static func quoted(_ bytes: [UInt8]) -> [UInt8] { [UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")] }

    @Test(
        "valid sequences of every length parse to the right string",
        arguments: [
            ([0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49], "ABCDEFGHI"),
            ([0xC3, 0xA9], "é"),
            ([0xE2, 0x82, 0xAC], "€"),
            ([0xED, 0x9F, 0xBF], "\u{D7FF}"),
            ([0xEE, 0x80, 0x80], "\u{E000}"),
            ([0xF0, 0x9F, 0x9A, 0x97], "🚗"),
            ([0xF4, 0x8F, 0xBF, 0xBF], "\u{10FFFF}"),
        ] as [([UInt8], String)])
    func valid(bytes: [UInt8], expected: String) throws {
        #expect(try JSONParser.parse(Self.quoted(bytes)) == .string(expected))
    }

    @Test(
        "invalid sequences are refused",
        arguments: [
            [0xC0, 0x80],  // overlong NUL
            [0xC1, 0xBF],  // overlong
            [0xE0, 0x80, 0x80],  // overlong 3-byte
            [0xED, 0xA0, 0x80],  // UTF-16 surrogate
            [0xF0, 0x80, 0x80, 0x80],  // overlong 4-byte
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xF5, 0x80, 0x80, 0x80],  // invalid lead
            [0x80],  // lone continuation
            [0xE2, 0x82],  // truncated
            [0xE2, 0x28, 0xA1],  // bad continuation
            [0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0xFF],  // after the ASCII fast path
        ] as [[UInt8]])
    func invalid(bytes: [UInt8]) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Self.quoted(bytes)) }
    }
}
