import RowCastKit

/// A forward-only JSON scanner for the hot paths' fast lanes (the upsert decoder, the plugin
/// output check): it walks bytes without building values and answers "fine" or "not mine".
///
/// It accepts a strict subset of what `JSONParser` accepts, never more: strings with the
/// short escapes (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`; not `\u`), numbers without
/// exponent of up to 300 digits before the point (`number()`, which makes the value: up to
/// 15), nesting up to `maximumDepth`. Everything
/// else (and everything invalid) makes a method return false or nil, and the caller falls back
/// to the full parser, which accepts or refuses it with its own error. So the fast lane can be
/// wrong only by being slow.
///
/// It lives in this module, not in the SDK, so that its loops are optimized with their callers.
struct JSONScanner {
    /// How deep the fast lane goes before it leaves the value to the full parser (which
    /// allows `JSONParser.maximumDepth`, 64, counted from the message's top).
    static let maximumDepth = 32

    let bytes: UnsafeRawBufferPointer
    /// The next unread byte.
    var index = 0
    /// Containers entered and not left.
    var depth = 0

    /// A scanner at the start of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    // MARK: - Structure

    /// Skips JSON whitespace.
    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The next byte after whitespace, not consumed (nil at the end).
    @inline(__always)
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// Consumes whitespace and then `byte`; false when another byte is next.
    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        index += 1
        return true
    }

    /// Consumes the `{` of an object. nil: not an object, or too deep; false: the object was
    /// empty (its `}` consumed too); true: a member follows.
    mutating func beginObject() -> Bool? {
        guard depth < Self.maximumDepth, consume(UInt8(ascii: "{")) else { return nil }
        depth += 1
        if consume(UInt8(ascii: "}")) {
            depth -= 1
            return false
        }
        return true
    }

    /// The bytes of the next member's key (a string without escapes), its `:` consumed; nil
    /// when the key is anything else.
    mutating func key() -> Range<Int>? {
        guard peek() == UInt8(ascii: "\""), let key = plainString(), consume(UInt8(ascii: ":")) else { return nil }
        return key
    }

    /// Walks the members of the object at the scanner: `member` gets each key's bytes with
    /// the scanner at its value, and consumes the value (returning false leaves the walk).
    /// True when the whole object was read; false when it is not an object in this subset, or
    /// `member` left.
    @inline(__always)
    mutating func forEachMember(_ member: (inout JSONScanner, Range<Int>) -> Bool) -> Bool {
        guard let hasMembers = beginObject() else { return false }
        guard hasMembers else { return true }
        repeat {
            guard let key = key(), member(&self, key) else { return false }
            guard let more = next(closedBy: UInt8(ascii: "}")) else { return false }
            if !more { return true }
        } while true
    }

    /// After a member or element: true for `,` (consumed), false for `close` (consumed, the
    /// container left), nil for anything else.
    mutating func next(closedBy close: UInt8) -> Bool? {
        switch peek() {
        case UInt8(ascii: ","):
            index += 1
            return true
        case close:
            index += 1
            depth -= 1
            return false
        default:
            return nil
        }
    }

    /// Whether only whitespace is left.
    mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// Whether `range` holds exactly the bytes of `text`.
    @inline(__always)
    func bytes(_ range: Range<Int>, are text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let pointer = text.utf8Start
        for offset in 0..<range.count where bytes[range.lowerBound + offset] != pointer[offset] {
            return false
        }
        return true
    }

    // MARK: - Values

    /// Skips one value (after whitespace), checking it; false when it is not valid or not in
    /// this scanner's subset.
    mutating func skipValue() -> Bool {
        guard let first = peek() else { return false }
        switch first {
        case UInt8(ascii: "{"):
            return forEachMember { scanner, _ in scanner.skipValue() }
        case UInt8(ascii: "["):
            guard depth < Self.maximumDepth else { return false }
            index += 1
            depth += 1
            if consume(UInt8(ascii: "]")) {
                depth -= 1
                return true
            }
            repeat {
                guard skipValue() else { return false }
                guard let more = next(closedBy: UInt8(ascii: "]")) else { return false }
                if !more { return true }
            } while true
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "t"):
            return literal("true")
        case UInt8(ascii: "f"):
            return literal("false")
        case UInt8(ascii: "n"):
            return literal("null")
        default:
            return skipNumber()
        }
    }

    /// The next value (after whitespace) as a string, when it is a string without escapes.
    mutating func plainStringValue() -> String? {
        guard peek() == UInt8(ascii: "\""), let range = plainString() else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// At a string's opening quote: its content's bytes when it has no escape and is valid
    /// UTF-8 (consumed); nil otherwise.
    mutating func plainString() -> Range<Int>? {
        let start = index + 1
        var offset = start
        var isASCII = true
        while true {
            offset = JSONStringScan.plainASCIIEnd(bytes, from: offset)
            guard offset < bytes.count else { return nil }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") { break }
            guard byte >= 0x80 else { return nil }  // an escape or a control character
            isASCII = false
            offset += 1
        }
        if !isASCII, !UTF8Validation.isValid(UnsafeRawBufferPointer(rebasing: bytes[start..<offset])) { return nil }
        index = offset + 1
        return start..<offset
    }

    /// At a string's opening quote: skips it when it is valid and uses only the short escapes.
    mutating func skipString() -> Bool {
        index += 1
        var runStart = index
        var runIsASCII = true
        while true {
            index = JSONStringScan.plainASCIIEnd(bytes, from: index)
            guard index < bytes.count else { return false }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                if !runIsASCII, !UTF8Validation.isValid(UnsafeRawBufferPointer(rebasing: bytes[runStart..<index])) { return false }
                index += 1
                if byte == UInt8(ascii: "\"") { return true }
                guard index < bytes.count else { return false }
                switch bytes[index] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                default:
                    return false  // \u (left to the parser's surrogate checks) or invalid
                }
                runStart = index
                runIsASCII = true
            } else if byte < 0x20 {
                return false
            } else {
                runIsASCII = false
                index += 1
            }
        }
    }

    /// Reads the next value (after whitespace) as a number, as `JSONParser` would give its
    /// `Double`: an integer of up to 15 digits (other than `-0`), or a decimal without exponent
    /// whose integer part has up to 15 digits. nil for anything else (not a number, invalid,
    /// or left to the parser).
    mutating func number() -> Double? {
        skipWhitespace()
        let start = index
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let digitsStart = index
        var integer: Int64 = 0
        while index < bytes.count, let digit = Self.digit(bytes[index]) {
            integer = integer &* 10 &+ Int64(digit)
            index += 1
        }
        let digits = index - digitsStart
        guard digits >= 1, digits <= 15 else { return nil }
        if digits > 1, bytes[digitsStart] == UInt8(ascii: "0") { return nil }  // a leading zero
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") { return nil }
        guard index < bytes.count, bytes[index] == UInt8(ascii: ".") else {
            if negative && integer == 0 { return nil }  // -0: the parser keeps its text
            return negative ? -Double(integer) : Double(integer)
        }
        index += 1
        let fractionStart = index
        while index < bytes.count, Self.digit(bytes[index]) != nil { index += 1 }
        guard index > fractionStart else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") { return nil }
        return Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    /// Skips a number of the parser's grammar whose value is surely finite: up to 300 digits
    /// before the point (1e300 is far below `Double`'s limit) and no exponent.
    mutating func skipNumber() -> Bool {
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while index < bytes.count, Self.digit(bytes[index]) != nil { index += 1 }
        let digits = index - digitsStart
        guard digits >= 1, digits <= 300 else { return false }
        if digits > 1, bytes[digitsStart] == UInt8(ascii: "0") { return false }  // a leading zero
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count, Self.digit(bytes[index]) != nil { index += 1 }
            guard index > fractionStart else { return false }
        }
        return !(index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")))
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let range = index..<(index + text.utf8CodeUnitCount)
        guard range.upperBound <= bytes.count, self.bytes(range, are: text) else { return false }
        index = range.upperBound
        return true
    }

    @inline(__always)
    private static func digit(_ byte: UInt8) -> UInt8? {
        let value = byte &- UInt8(ascii: "0")
        return value < 10 ? value : nil
    }
}
