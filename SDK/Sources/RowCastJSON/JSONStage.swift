/// The JSON serializer under ``JSONWriter``: it writes into a buffer on the stack and moves
/// the bytes to the writer's array in one copy when the buffer fills or the write ends.
///
/// Appending to an `Array` costs its uniqueness and capacity checks on every call, more than
/// the copy of a few bytes; a row is some thirty pieces (quotes, keys, punctuation,
/// values), and appending them one by one was most of the cost of writing it. Here a piece is
/// a bounds check and a copy. Made only by ``JSONWriter/withStage(_:)``, which flushes it.
@usableFromInline package struct JSONStage: ~Copyable {
    /// The stack buffer.
    @usableFromInline let base: UnsafeMutableRawPointer
    /// How many bytes `base` holds.
    @usableFromInline let capacity: Int
    /// How many bytes are waiting in `base`.
    @usableFromInline var count = 0
    /// The writer's array, where the bytes go (valid for the stage's life, in `withStage`).
    @usableFromInline let destination: UnsafeMutablePointer<[UInt8]>

    /// A stage over `buffer` that flushes into `destination`.
    @usableFromInline package init(buffer: UnsafeMutableRawBufferPointer, destination: UnsafeMutablePointer<[UInt8]>) {
        base = buffer.baseAddress!
        capacity = buffer.count
        self.destination = destination
    }

    // MARK: - Bytes

    /// Moves the waiting bytes to the writer's array.
    @usableFromInline package mutating func flush() {
        guard count > 0 else { return }
        destination.pointee.append(
            contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count))
        count = 0
    }

    /// Appends one byte.
    @inlinable @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count == capacity { flush() }
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count &+= 1
    }

    /// Appends bytes: copied into the buffer, or straight to the array when longer than it.
    @inlinable @inline(__always)
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        if bytes.count > capacity &- count {
            flush()
            if bytes.count > capacity {
                destination.pointee.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
                return
            }
        }
        ByteCopy.copy(to: base + count, from: source, count: bytes.count)
        count &+= bytes.count
    }

    /// Appends ASCII text that is already valid JSON (punctuation, a literal).
    @inlinable @inline(__always)
    package mutating func writeRaw(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    // MARK: - Values

    /// Appends `value` as compact JSON.
    package mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let flag): writeRaw(flag ? "true" : "false")
        case .number(let number):
            if let literal = number.literal {
                write(utf8Of: literal)
            } else {
                write(number: number.double)
            }
        case .string(let string): write(string: string)
        case .array(let elements):
            append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { append(UInt8(ascii: ",")) }
                write(element)
            }
            append(UInt8(ascii: "]"))
        case .object(let object): write(object: object)
        }
    }

    /// Appends an object as compact JSON, members in their order.
    package mutating func write(object: JSONObject) {
        append(UInt8(ascii: "{"))
        // Members read in place by index (no copy of each key and value).
        let entries = object.entries
        for index in entries.indices {
            if index > 0 { append(UInt8(ascii: ",")) }
            write(string: entries[index].key)
            append(UInt8(ascii: ":"))
            write(entries[index].value)
        }
        append(UInt8(ascii: "}"))
    }

    /// Appends a number: integral values up to 2^53 without a fraction, non-finite ones as `null`.
    package mutating func write(number: Double) {
        guard number.isFinite else {
            writeRaw("null")
            return
        }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 {
            write(integer: Int64(number))
        } else {
            write(utf8Of: String(describing: number))
        }
    }

    /// Appends an integer.
    package mutating func write(integer: Int64) {
        // The digits go into a stack buffer from its end, then in one copy.
        var magnitude = integer.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if integer < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            append(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(digits)[start...]))
        }
    }

    /// Appends a quoted, escaped string.
    package mutating func write(string: String) {
        // The usual string, with nothing to escape, copied and checked in the buffer.
        let written = string.utf8.withContiguousStorageIfAvailable { appendQuotedIfPlain(UnsafeRawBufferPointer($0)) }
        if written == true { return }
        append(UInt8(ascii: "\""))
        // A native or small string is read where it is; any other is made native first.
        if string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) == nil {
            var string = string
            string.withUTF8 { appendEscaped($0) }
        }
        append(UInt8(ascii: "\""))
    }

    /// Appends `utf8` quoted and returns true when no byte of it needs an escape; else appends
    /// nothing and returns false. The bytes are copied first and checked in the buffer, eight
    /// at a time with spaces after them (nothing to escape) for the last eight: no byte by
    /// byte tail, which was most of the cost of the short strings a row is made of.
    @inline(__always)
    private mutating func appendQuotedIfPlain(_ utf8: UnsafeRawBufferPointer) -> Bool {
        // Room for the quotes and the padding word.
        let needed = utf8.count &+ 10
        if needed > capacity &- count {
            guard needed <= capacity else { return false }
            flush()
        }
        let start = base + (count &+ 1)
        base.storeBytes(of: UInt8(ascii: "\""), toByteOffset: count, as: UInt8.self)
        if let source = utf8.baseAddress { ByteCopy.copy(to: start, from: source, count: utf8.count) }
        start.storeBytes(of: 0x2020_2020_2020_2020 as UInt64, toByteOffset: utf8.count, as: UInt64.self)
        var offset = 0
        while offset < utf8.count {
            let word = start.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            if JSONStringScan.specialBits(word, stopsAtNonASCII: false) != 0 { return false }
            offset &+= 8
        }
        start.storeBytes(of: UInt8(ascii: "\""), toByteOffset: utf8.count, as: UInt8.self)
        count &+= utf8.count &+ 2
        return true
    }

    /// Appends a string's UTF-8 as it is (text that is already valid JSON).
    private mutating func write(utf8Of text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ append(UnsafeRawBufferPointer($0)) }) == nil {
            var text = text
            text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Appends UTF-8 bytes, escaping what JSON requires, without quotes.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Runs that need no escape are found eight bytes at a time and copied whole.
        let raw = UnsafeRawBufferPointer(utf8)
        var runStart = 0
        var special = JSONStringScan.escapeFreeEnd(raw, from: 0)
        while special < utf8.count {
            append(UnsafeRawBufferPointer(rebasing: raw[runStart..<special]))
            appendEscape(utf8[special])
            runStart = special + 1
            special = JSONStringScan.escapeFreeEnd(raw, from: runStart)
        }
        append(UnsafeRawBufferPointer(rebasing: raw[runStart..<utf8.count]))
    }

    /// Appends the escape of `byte`: a quote, a backslash or a control character.
    private mutating func appendEscape(_ byte: UInt8) {
        append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): append(UInt8(ascii: "\\"))
        case 0x0A: append(UInt8(ascii: "n"))
        case 0x0D: append(UInt8(ascii: "r"))
        case 0x09: append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            append(UInt8(ascii: "u"))
            append(UInt8(ascii: "0"))
            append(UInt8(ascii: "0"))
            append(hex.utf8Start[Int(byte >> 4)])
            append(hex.utf8Start[Int(byte & 0xF)])
        }
    }
}
