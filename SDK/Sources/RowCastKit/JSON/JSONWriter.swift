/// Appends compact JSON text to a byte buffer; the one serializer RowCast uses on every path.
///
/// The bytes live in a buffer of the writer's own (`JSONWriterStorage`), appended to with one
/// capacity check and a copy: `Array.append(contentsOf:)` cost about 100 instructions a call,
/// and a row is some twenty appends. `bytes` copies them out once, at the end. A copied writer
/// shares the buffer until either appends (copy on write).
public struct JSONWriter {
    private var storage: JSONWriterStorage

    /// A writer with an empty buffer of at least `capacity` bytes.
    public init(capacity: Int = 256) {
        storage = JSONWriterStorage(capacity: capacity)
    }

    /// The bytes written so far (a copy).
    public var bytes: [UInt8] {
        storage.withBytes { Array($0) }
    }

    /// How many bytes have been written.
    public var count: Int { storage.count }

    /// Calls `body` with the bytes written so far, without copying them; the pointer is valid
    /// only inside `body`.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try storage.withBytes { try body(UnsafeRawBufferPointer($0)) }
    }

    /// Removes the last byte written (a separator that turned out to end the list).
    public mutating func removeLast() {
        precondition(storage.count > 0, "JSONWriter.removeLast on an empty writer")
        makeUnique()
        storage.count -= 1
    }

    /// Appends `value` as compact JSON.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let flag): writeRaw(flag ? "true" : "false")
        case .number(let number):
            if let literal = number.literal {
                append(contentsOf: literal.utf8)
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
        case .object(let object):
            append(UInt8(ascii: "{"))
            for (offset, entry) in object.entries.enumerated() {
                if offset > 0 { append(UInt8(ascii: ",")) }
                write(string: entry.key)
                append(UInt8(ascii: ":"))
                write(entry.value)
            }
            append(UInt8(ascii: "}"))
        }
    }

    /// Appends a number: integral values up to 2^53 without a fraction, non-finite ones as `null`.
    public mutating func write(number: Double) {
        guard number.isFinite else {
            writeRaw("null")
            return
        }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 {
            write(integer: Int64(number))
        } else {
            append(contentsOf: String(describing: number).utf8)
        }
    }

    /// Appends an integer.
    public mutating func write(integer: Int64) {
        // The digits go into a stack buffer from its end, then into the buffer in one copy
        // (appending digit by digit and reversing cost about six times as much).
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
            append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: digits[start...])))
        }
    }

    /// Appends a quoted, escaped string.
    public mutating func write(string: String) {
        append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
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
            append(UnsafeRawBufferPointer(rebasing: raw[runStart..<raw.count]))
        }
        append(UInt8(ascii: "\""))
    }

    /// Appends bytes that are already valid JSON (a stored row, say) without looking at them.
    public mutating func writeRaw(_ json: some Sequence<UInt8>) {
        append(contentsOf: json)
    }

    /// Appends bytes that are already valid JSON, as one copy. The generic form above, called
    /// from another module, is not specialized and appends byte by byte (a million-row
    /// snapshot took 3.3 s through it, 2.7 s with this overload, in the same run).
    public mutating func writeRaw(_ json: [UInt8]) {
        json.withUnsafeBytes { append($0) }
    }

    /// Appends a slice of bytes that are already valid JSON, as one copy (see above).
    public mutating func writeRaw(_ json: ArraySlice<UInt8>) {
        json.withUnsafeBytes { append($0) }
    }

    /// Appends ASCII text that is already valid JSON (punctuation, a literal).
    public mutating func writeRaw(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends raw bytes with one capacity check and one copy.
    @inline(__always)
    private mutating func append(_ source: UnsafeRawBufferPointer) {
        guard let start = source.baseAddress, !source.isEmpty else { return }
        makeUnique()
        storage.append(start, count: source.count)
    }

    /// Appends one byte.
    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        makeUnique()
        storage.append(byte)
    }

    /// Appends a sequence's bytes, one at a time unless it has contiguous storage.
    private mutating func append(contentsOf source: some Sequence<UInt8>) {
        let copied: Void? = source.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if copied == nil {
            for byte in source { append(byte) }
        }
    }

    /// Gives this writer a buffer of its own before it appends, when a copy shares it.
    @inline(__always)
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

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

extension JSONValue {
    /// This value as compact JSON bytes.
    public func serialized() -> [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }
}
