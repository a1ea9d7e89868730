import RowCastJSON

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

    /// The address of the first byte (a placeholder, never read, when there is no byte).
    /// Kept with `count` instead of as an `UnsafeRawBufferPointer`, whose optional address
    /// would be checked at every read.
    private let start: UnsafeRawPointer
    /// How many bytes there are.
    private let count: Int
    /// The next unread byte.
    var index = 0
    /// Containers entered and not left.
    var depth = 0

    /// A scanner at the start of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) {
        start = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        count = bytes.count
    }

    /// The bytes the scanner reads.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }

    /// The byte at `offset`, which must be below `count`.
    @inline(__always)
    private func byte(at offset: Int) -> UInt8 { start.load(fromByteOffset: offset, as: UInt8.self) }

    // MARK: - Structure

    /// Skips JSON whitespace.
    @inline(__always)
    mutating func skipWhitespace() {
        while index < count, Self.isWhitespace(byte(at: index)) { index &+= 1 }
    }

    /// Whether `byte` is JSON whitespace: one comparison for the usual byte, above the space.
    @inline(__always)
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte <= 0x20 && (byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09)
    }

    /// The next byte after whitespace, not consumed (nil at the end).
    @inline(__always)
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < count ? byte(at: index) : nil
    }

    /// Consumes whitespace and then `byte`; false when another byte is next.
    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < count, self.byte(at: index) == byte else { return false }
        index &+= 1
        return true
    }

    /// Consumes the `{` of an object. nil: not an object, or too deep; false: the object was
    /// empty (its `}` consumed too); true: a member follows.
    @inline(__always)
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
    @inline(__always)
    mutating func key() -> Range<Int>? {
        guard consume(UInt8(ascii: "\"")), let key = plainStringContent(), consume(UInt8(ascii: ":")) else {
            return nil
        }
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
    @inline(__always)
    mutating func next(closedBy close: UInt8) -> Bool? {
        skipWhitespace()
        guard index < count else { return nil }
        switch byte(at: index) {
        case UInt8(ascii: ","):
            index &+= 1
            return true
        case close:
            index &+= 1
            depth -= 1
            return false
        default:
            return nil
        }
    }

    /// Whether only whitespace is left.
    mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == count
    }

    /// Whether `range` holds exactly the bytes of `text`. The lengths are compared first, and
    /// the loop runs to `text`'s length, a constant where this is inlined, with no overflow
    /// check, so that the compiler unrolls it into one comparison per byte.
    @inline(__always)
    func bytes(_ range: Range<Int>, are text: StaticString) -> Bool {
        let length = text.utf8CodeUnitCount
        guard range.upperBound &- range.lowerBound == length else { return false }
        let pointer = text.utf8Start
        var offset = 0
        while offset < length {
            guard byte(at: range.lowerBound &+ offset) == pointer[offset] else { return false }
            offset &+= 1
        }
        return true
    }

    // MARK: - Values

    /// Skips one value (after whitespace), checking it; false when it is not valid or not in
    /// this scanner's subset.
    ///
    /// One loop, not a call per container: the containers it opens are a stack of bits in
    /// `arrays` (relative depth up to `maximumDepth`, so 64 bits are enough), and after each
    /// value it closes those the value ends, then reads the `,` and the next key, if any. It
    /// reads and refuses exactly what `forEachMember` and a walk of each array's elements
    /// would, keys included (strings without escapes).
    mutating func skipValue() -> Bool {
        let outerDepth = depth
        /// One bit per container open in this value, the innermost lowest: set for an array.
        var arrays: UInt64 = 0
        value: while true {
            skipWhitespace()
            guard index < count else { return false }
            switch byte(at: index) {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isArray = byte(at: index) == UInt8(ascii: "[")
                guard depth < Self.maximumDepth else { return false }
                index &+= 1
                depth += 1
                if consume(isArray ? UInt8(ascii: "]") : UInt8(ascii: "}")) {
                    depth -= 1  // empty: a value read
                } else {
                    arrays = arrays << 1 | (isArray ? 1 : 0)
                    guard isArray || key() != nil else { return false }
                    continue value
                }
            case UInt8(ascii: "\""):
                guard skipString() else { return false }
            case UInt8(ascii: "t"):
                guard literal("true") else { return false }
            case UInt8(ascii: "f"):
                guard literal("false") else { return false }
            case UInt8(ascii: "n"):
                guard literal("null") else { return false }
            default:
                guard skipNumber() else { return false }
            }
            // A value read: close the containers it ends, up to a `,` and the next value.
            while depth > outerDepth {
                let inArray = arrays & 1 != 0
                skipWhitespace()
                guard index < count else { return false }
                let found = byte(at: index)
                index &+= 1
                if found == UInt8(ascii: ",") {
                    guard inArray || key() != nil else { return false }
                    continue value
                }
                guard found == (inArray ? UInt8(ascii: "]") : UInt8(ascii: "}")) else { return false }
                depth -= 1
                arrays >>= 1
            }
            return true
        }
    }

    /// At a string's opening quote: its content's bytes when it has no escape and is valid
    /// UTF-8 (consumed); nil otherwise.
    @inline(__always)
    mutating func plainString() -> Range<Int>? {
        index &+= 1
        return plainStringContent()
    }

    /// Past a string's opening quote: `plainString`. The usual string, plain ASCII up to its
    /// closing quote, takes one scan here; any other goes on in `plainStringPastASCII`.
    @inline(__always)
    mutating func plainStringContent() -> Range<Int>? {
        let contentStart = index
        let end = JSONStringScan.plainASCIIEnd(bytes, from: contentStart)
        guard end < count, byte(at: end) == UInt8(ascii: "\"") else {
            return plainStringPastASCII(from: contentStart, at: end)
        }
        index = end &+ 1
        return contentStart..<end
    }

    /// The rest of `plainStringContent` from `offset`, where the run of plain ASCII from
    /// `contentStart` stopped short of a closing quote.
    private mutating func plainStringPastASCII(from contentStart: Int, at offset: Int) -> Range<Int>? {
        var offset = offset
        while true {
            guard offset < count else { return nil }
            let found = byte(at: offset)
            if found == UInt8(ascii: "\"") { break }
            guard found >= 0x80 else { return nil }  // an escape or a control character
            offset = JSONStringScan.plainASCIIEnd(bytes, from: offset + 1)
        }
        // The loop went past a byte that is not ASCII at least once: the content is checked.
        guard UTF8Validation.isValid(UnsafeRawBufferPointer(rebasing: bytes[contentStart..<offset])) else { return nil }
        index = offset + 1
        return contentStart..<offset
    }

    /// At a string's opening quote: skips it when it is valid and uses only the short escapes.
    /// The usual string, plain ASCII up to its closing quote, takes one scan here; any other
    /// goes on in `skipStringPastASCII`.
    @inline(__always)
    mutating func skipString() -> Bool {
        let contentStart = index &+ 1
        let end = JSONStringScan.plainASCIIEnd(bytes, from: contentStart)
        if end < count, byte(at: end) == UInt8(ascii: "\"") {
            index = end &+ 1
            return true
        }
        index = end
        return skipStringPastASCII(runStart: contentStart)
    }

    /// The rest of `skipString` from `index`, where the run of plain ASCII from `runStart`
    /// stopped short of the closing quote.
    private mutating func skipStringPastASCII(runStart: Int) -> Bool {
        var runStart = runStart
        var runIsASCII = true
        while true {
            guard index < count else { return false }
            let found = byte(at: index)
            if found == UInt8(ascii: "\"") || found == UInt8(ascii: "\\") {
                if !runIsASCII, !UTF8Validation.isValid(UnsafeRawBufferPointer(rebasing: bytes[runStart..<index])) {
                    return false
                }
                index += 1
                if found == UInt8(ascii: "\"") { return true }
                guard index < count else { return false }
                switch byte(at: index) {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                default:
                    return false  // \u (left to the parser's surrogate checks) or invalid
                }
                runStart = index
                runIsASCII = true
            } else if found < 0x20 {
                return false
            } else {
                runIsASCII = false
                index += 1
            }
            index = JSONStringScan.plainASCIIEnd(bytes, from: index)
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
        if index < count, byte(at: index) == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let digitsStart = index
        var integer: Int64 = 0
        while index < count, let digit = Self.digit(byte(at: index)) {
            integer = integer &* 10 &+ Int64(digit)
            index += 1
        }
        let digits = index - digitsStart
        guard digits >= 1, digits <= 15 else { return nil }
        if digits > 1, byte(at: digitsStart) == UInt8(ascii: "0") { return nil }  // a leading zero
        if isExponent(at: index) { return nil }
        guard index < count, byte(at: index) == UInt8(ascii: ".") else {
            if negative && integer == 0 { return nil }  // -0: the parser keeps its text
            return negative ? -Double(integer) : Double(integer)
        }
        index += 1
        let fractionStart = index
        while index < count, Self.digit(byte(at: index)) != nil { index += 1 }
        guard index > fractionStart else { return nil }
        if isExponent(at: index) { return nil }
        return Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    /// Skips a number of the parser's grammar whose value is surely finite: up to 300 digits
    /// before the point (1e300 is far below `Double`'s limit) and no exponent.
    mutating func skipNumber() -> Bool {
        if index < count, byte(at: index) == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while index < count, Self.digit(byte(at: index)) != nil { index += 1 }
        let digits = index - digitsStart
        guard digits >= 1, digits <= 300 else { return false }
        if digits > 1, byte(at: digitsStart) == UInt8(ascii: "0") { return false }  // a leading zero
        if index < count, byte(at: index) == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < count, Self.digit(byte(at: index)) != nil { index += 1 }
            guard index > fractionStart else { return false }
        }
        return !isExponent(at: index)
    }

    /// Whether an exponent (`e` or `E`, which this subset leaves to the parser) is at `offset`.
    @inline(__always)
    private func isExponent(at offset: Int) -> Bool {
        offset < count && (byte(at: offset) == UInt8(ascii: "e") || byte(at: offset) == UInt8(ascii: "E"))
    }

    /// Consumes `text` (`true`, `false` or `null`) at the scanner; false when other bytes are there.
    private mutating func literal(_ text: StaticString) -> Bool {
        let range = index..<(index + text.utf8CodeUnitCount)
        guard range.upperBound <= count, self.bytes(range, are: text) else { return false }
        index = range.upperBound
        return true
    }

    /// The value of a decimal digit, nil for another byte.
    @inline(__always)
    private static func digit(_ byte: UInt8) -> UInt8? {
        let value = byte &- UInt8(ascii: "0")
        return value < 10 ? value : nil
    }
}
