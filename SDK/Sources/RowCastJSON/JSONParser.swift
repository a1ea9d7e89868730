/// A strict, allocation-light JSON parser over UTF-8 bytes (RFC 8259).
///
/// It rejects trailing garbage, invalid UTF-8, control characters in strings, leading zeros,
/// lone surrogates and nesting deeper than `maximumDepth`, so hostile input costs an error,
/// never a crash or a stack overflow.
public struct JSONParser: ~Copyable {
    /// How deep arrays and objects may nest before the input is refused.
    public static let maximumDepth = 64

    let bytes: UnsafeRawBufferPointer
    var index = 0
    var depth = 0
    /// Reading mode: whether the current object has had no member read yet.
    var expectingFirstMember = false

    private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// A parser positioned at the start of `bytes`, for the pull-style reading methods.
    init(reading bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Parses one JSON value that spans all of `bytes` (surrounding whitespace allowed).
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw JSONParseError(offset: parser.index, reason: "unexpected data after the JSON value")
        }
        return value
    }

    /// Parses one JSON value from a byte array.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        do {
            return try bytes.withUnsafeBytes { buffer in try parse(buffer) }
        } catch let error as JSONParseError {
            throw error
        } catch {
            throw JSONParseError(offset: 0, reason: "\(error)")
        }
    }

    /// Parses one JSON value from a string's UTF-8.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    // MARK: - Values

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character '\(printable(bytes[index]))'")
        }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONObject {
        var object = JSONObject()
        guard try openContainer(closedBy: UInt8(ascii: "}")) else { return object }
        // Items and rows are objects of a few members: room for 8 at once, instead of
        // growing 1, 2, 4 (three allocations and copies for a four-member object).
        object.reserveCapacity(8)
        repeat {
            try expectKey()
            let key = try parseString(isKey: true)
            try expectColon()
            object.append(key: key, value: try parseValue())
        } while try continueContainer(closedBy: UInt8(ascii: "}"))
        return object
    }

    mutating func parseArray() throws(JSONParseError) -> [JSONValue] {
        var elements: [JSONValue] = []
        guard try openContainer(closedBy: UInt8(ascii: "]")) else { return elements }
        elements.reserveCapacity(4)
        repeat {
            skipWhitespace()
            elements.append(try parseValue())
        } while try continueContainer(closedBy: UInt8(ascii: "]"))
        return elements
    }

    // MARK: - Containers
    //
    // The small steps between members are inlined: called, they cost more than their work
    // (three of them per member).
    //
    // The grammar of objects and arrays, once, for the three ways of going through them:
    // building values (`parseObject`, `parseArray`), validating without building (`skip`) and
    // pulling members one by one (`beginObject`, `nextKey`, `beginArray`, `nextElement`).

    /// Consumes the `{` or `[` at the current byte, counting the depth. Returns false when
    /// `close` follows at once (consumed too: the container was empty).
    mutating func openContainer(closedBy close: UInt8) throws(JSONParseError) -> Bool {
        try enterContainer()
        index += 1
        skipWhitespace()
        guard peek() == close else { return true }
        leaveContainer()
        return false
    }

    /// After a member or an element: consumes `,` and returns true, or consumes `close` and
    /// returns false (the container ended).
    @inline(__always)
    mutating func continueContainer(closedBy close: UInt8) throws(JSONParseError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            index += 1
            return true
        case close:
            leaveContainer()
            return false
        default:
            throw fail(
                close == UInt8(ascii: "}") ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array")
        }
    }

    /// Positions at the opening quote of an object key; throws if the next byte is not one.
    @inline(__always)
    mutating func expectKey() throws(JSONParseError) {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a string key") }
    }

    /// Consumes the `:` after an object key and the whitespace before the value.
    @inline(__always)
    mutating func expectColon() throws(JSONParseError) {
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw fail("expected ':' after an object key") }
        index += 1
        skipWhitespace()
    }

    /// Consumes the `}` or `]` that closes the current container.
    @inline(__always)
    mutating func leaveContainer() {
        index += 1
        depth -= 1
    }

    mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw fail("nesting deeper than \(Self.maximumDepth) levels")
        }
    }

    // MARK: - Strings

    /// Reads a string; `isKey` when it is an object key, so that the keys of an item's
    /// envelope come back as the SDK's own literals (no UTF-8 check, no new string).
    mutating func parseString(isKey: Bool = false) throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes; plain ASCII runs crossed eight bytes at a time, and the UTF-8
        // check only when a byte is not ASCII.
        var isASCII = true
        while true {
            index = plainASCIIEnd(from: index)
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                guard isASCII else { return try makeString(slice, at: start) }
                if isKey, let known = Self.envelopeKey(slice) { return known }
                return String(unsafeUninitializedCapacity: slice.count) { buffer in
                    if let destination = buffer.baseAddress, let source = slice.baseAddress {
                        ByteCopy.copy(to: destination, from: source, count: slice.count)
                    }
                    return slice.count
                }
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("control character in a string") }
            isASCII = false
            index += 1
        }
        // Slow path: copy with escapes decoded.
        var buffer = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                let string = buffer.withUnsafeBytes { UTF8Validation.string($0) }
                guard let string else { throw JSONParseError(offset: start, reason: "invalid UTF-8 in a string") }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                try decodeEscape(into: &buffer)
            case 0..<0x20:
                throw fail("control character in a string")
            default:
                buffer.append(byte)
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    mutating func decodeEscape(into buffer: inout [UInt8]) throws(JSONParseError) {
        guard index < bytes.count else { throw fail("unterminated escape") }
        let code = bytes[index]
        index += 1
        switch code {
        case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw fail("lone high surrogate in a \\u escape")
                }
                index += 2
                let low = try readHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw fail("invalid low surrogate in a \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw fail("lone low surrogate in a \\u escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
            buffer.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            index -= 1
            throw fail("invalid escape '\\\(printable(code))'")
        }
    }

    private mutating func readHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid hex digit in a \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// The envelope key (`id`, `type`, `section`, `sort`, `data`) spelled by `slice`, if any:
    /// every item has some of them, and a literal costs nothing to make.
    @inline(__always)
    static func envelopeKey(_ slice: UnsafeRawBufferPointer) -> String? {
        switch slice.count {
        case 2:
            return slice[0] == UInt8(ascii: "i") && slice[1] == UInt8(ascii: "d") ? "id" : nil
        case 4:
            let b0 = slice[0], b1 = slice[1], b2 = slice[2], b3 = slice[3]
            if b0 == UInt8(ascii: "t"), b1 == UInt8(ascii: "y"), b2 == UInt8(ascii: "p"), b3 == UInt8(ascii: "e") {
                return "type"
            }
            if b0 == UInt8(ascii: "d"), b1 == UInt8(ascii: "a"), b2 == UInt8(ascii: "t"), b3 == UInt8(ascii: "a") {
                return "data"
            }
            if b0 == UInt8(ascii: "s"), b1 == UInt8(ascii: "o"), b2 == UInt8(ascii: "r"), b3 == UInt8(ascii: "t") {
                return "sort"
            }
            return nil
        case 7:
            let section: StaticString = "section"
            for offset in 0..<7 where slice[offset] != section.utf8Start[offset] { return nil }
            return "section"
        default:
            return nil
        }
    }

    /// The offset of the first byte at or after `start` that a string scan must look at.
    @inline(__always)
    func plainASCIIEnd(from start: Int) -> Int {
        JSONStringScan.plainASCIIEnd(bytes, from: start)
    }

    private func makeString(_ slice: UnsafeRawBufferPointer, at start: Int) throws(JSONParseError) -> String {
        guard let string = UTF8Validation.string(slice) else {
            throw JSONParseError(offset: start, reason: "invalid UTF-8 in a string")
        }
        return string
    }

    // MARK: - Numbers

    /// Reads a number; its text is kept unless it is an integer of up to 15 digits other than
    /// `-0` (those print back as written from their `Double`).
    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit") }
        var integer: UInt64 = 0
        var digits = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fail("leading zero in a number") }
            digits = 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                if digits < 18 { integer = integer &* 10 &+ UInt64(bytes[index] - UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
        }
        var isIntegral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isIntegral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isIntegral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit in an exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if isIntegral, digits <= 15, !(negative && integer == 0) {
            let magnitude = Double(integer)
            return JSONNumber(negative ? -magnitude : magnitude)
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONParseError(offset: start, reason: "number out of range")
        }
        return JSONNumber(double: value, literal: text)
    }

    // MARK: - Helpers

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("unexpected end of input") }
        let pointer = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != pointer[offset] {
            throw fail("invalid literal")
        }
        index += count
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    @inline(__always)
    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func printable(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "0x" + String(byte, radix: 16)
    }

    func fail(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }
}
