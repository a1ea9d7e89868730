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
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            expectingFirstMember = false
            return nil
        }
        if !expectingFirstMember {
            guard peek() == UInt8(ascii: ",") else { throw fail("expected ',' or '}' in an object") }
            index += 1
            skipWhitespace()
        }
        expectingFirstMember = false
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a string key") }
        let key = try parseString()
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw fail("expected ':' after an object key") }
        index += 1
        skipWhitespace()
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
        try enterContainer()
        index += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return false
        }
        return true
    }

    /// After an element: consumes `,` and returns true, or consumes `]` and returns false.
    public mutating func nextElement() throws(JSONParseError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            index += 1
            return true
        case UInt8(ascii: "]"):
            index += 1
            depth -= 1
            return false
        default:
            throw fail("expected ',' or ']' in an array")
        }
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
            try enterContainer()
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return
            }
            while true {
                skipWhitespace()
                guard peek() == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                try skipString()
                skipWhitespace()
                guard peek() == UInt8(ascii: ":") else { throw fail("expected ':' after an object key") }
                index += 1
                skipWhitespace()
                try skip()
                skipWhitespace()
                switch peek() {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    depth -= 1
                    return
                default: throw fail("expected ',' or '}' in an object")
                }
            }
        case UInt8(ascii: "["):
            try enterContainer()
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return
            }
            while true {
                skipWhitespace()
                try skip()
                skipWhitespace()
                switch peek() {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"):
                    index += 1
                    depth -= 1
                    return
                default: throw fail("expected ',' or ']' in an array")
                }
            }
        case UInt8(ascii: "\""):
            try skipString()
        default:
            _ = try parseValue()  // numbers and literals allocate nothing
        }
    }

    /// Validates a string (escapes, control characters, UTF-8) without making it.
    private mutating func skipString() throws(JSONParseError) {
        index += 1
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                try checkUTF8(runStart..<index)
                index += 1
                return
            case UInt8(ascii: "\\"):
                try checkUTF8(runStart..<index)
                index += 1
                var scratch: [UInt8] = []
                try decodeEscape(into: &scratch)
                runStart = index
            case 0..<0x20:
                throw fail("control character in a string")
            default:
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    private func checkUTF8(_ range: Range<Int>) throws(JSONParseError) {
        guard UTF8Validation.isValid(UnsafeRawBufferPointer(rebasing: bytes[range])) else {
            throw JSONParseError(offset: range.lowerBound, reason: "invalid UTF-8 in a string")
        }
    }
}
