/// Pull-style reading on top of the parser, for hot paths that want a few members of an
/// object and only need the rest validated: read keys one by one, parse the values you need,
/// skip (but still fully validate) the others, and get the byte range of any value, so its
/// bytes can be passed on without re-encoding.
extension JSONParser {
    /// Runs `body` with a reader over `bytes`, then checks nothing but whitespace follows.
    public static func read<Result>(_ bytes: [UInt8], _ body: (inout JSONParser) throws -> Result) throws -> Result {
        try bytes.withUnsafeBytes { buffer in
            var parser = JSONParser(reading: buffer)
            let result = try body(&parser)
            try parser.finish()
            return result
        }
    }

    /// The byte offset of the next unread byte.
    public var offset: Int { index }

    /// Consumes whitespace and the `{` that opens an object; throws if the next value is not one.
    public mutating func beginObject() throws(JSONParseError) {
        skipWhitespace()
        guard peek() == UInt8(ascii: "{") else { throw fail("expected an object") }
        try enterContainer()
        index += 1
        expectingFirstMember = true
    }

    /// The key of the next member of the current object, positioned at its value; nil when
    /// the object ends (its `}` consumed).
    public mutating func nextKey() throws(JSONParseError) -> String? {
        skipWhitespace()
        if expectingFirstMember {
            expectingFirstMember = false
            if peek() == UInt8(ascii: "}") {
                leaveContainer()
                return nil
            }
        } else if try !continueContainer(closedBy: UInt8(ascii: "}")) {
            return nil
        }
        try expectKey()
        let key = try parseString()
        try expectColon()
        return key
    }

    /// Parses the next value into a `JSONValue`.
    public mutating func readValue() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        return try parseValue()
    }

    /// The first byte of the next value (`{`, `[`, `"`, a digit, `-`, `t`, `f`, `n`), or nil at the end.
    public mutating func peekValueStart() -> UInt8? {
        skipWhitespace()
        return peek()
    }

    /// Validates the next value without building it; returns its byte range.
    @discardableResult
    public mutating func skipValue() throws(JSONParseError) -> Range<Int> {
        skipWhitespace()
        let start = index
        try skip()
        return start..<index
    }

    /// Consumes `[` and reports whether the array has a first element (false: `]` consumed).
    public mutating func beginArray() throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard peek() == UInt8(ascii: "[") else { throw fail("expected an array") }
        return try openContainer(closedBy: UInt8(ascii: "]"))
    }

    /// After an element: consumes `,` and returns true, or consumes `]` and returns false.
    public mutating func nextElement() throws(JSONParseError) -> Bool {
        try continueContainer(closedBy: UInt8(ascii: "]"))
    }

    /// Checks that only whitespace is left.
    mutating func finish() throws(JSONParseError) {
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected data after the JSON value") }
    }

    // MARK: - Skipping

    private mutating func skip() throws(JSONParseError) {
        guard let first = peek() else { throw fail("unexpected end of input") }
        switch first {
        case UInt8(ascii: "{"):
            guard try openContainer(closedBy: UInt8(ascii: "}")) else { return }
            repeat {
                try expectKey()
                try skipString()
                try expectColon()
                try skip()
            } while try continueContainer(closedBy: UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            guard try openContainer(closedBy: UInt8(ascii: "]")) else { return }
            repeat {
                skipWhitespace()
                try skip()
            } while try continueContainer(closedBy: UInt8(ascii: "]"))
        case UInt8(ascii: "\""):
            try skipString()
        default:
            _ = try parseValue()  // numbers and literals allocate nothing
        }
    }

    /// Validates a string (escapes, control characters, UTF-8) without making it. Runs of
    /// plain ASCII are crossed eight bytes at a time, and only runs with other bytes are checked
    /// as UTF-8.
    private mutating func skipString() throws(JSONParseError) {
        index += 1
        var runStart = index
        var runIsASCII = true
        while true {
            index = plainASCIIEnd(from: index)
            guard index < bytes.count else { throw fail("unterminated string") }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                if !runIsASCII { try checkUTF8(runStart..<index) }
                index += 1
                return
            case UInt8(ascii: "\\"):
                if !runIsASCII { try checkUTF8(runStart..<index) }
                index += 1
                var scratch: [UInt8] = []
                try decodeEscape(into: &scratch)
                runStart = index
                runIsASCII = true
            case 0..<0x20:
                throw fail("control character in a string")
            default:
                runIsASCII = false
                index += 1
            }
        }
    }

    private func checkUTF8(_ range: Range<Int>) throws(JSONParseError) {
        guard UTF8Validation.isValid(UnsafeRawBufferPointer(rebasing: bytes[range])) else {
            throw JSONParseError(offset: range.lowerBound, reason: "invalid UTF-8 in a string")
        }
    }
}
