/// Appends compact JSON text to a byte buffer; the one serializer RowCast uses on every path.
public struct JSONWriter {
    /// The bytes written so far.
    public var bytes: [UInt8]

    /// A writer with an empty buffer of at least `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends `value` as compact JSON.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let flag): writeRaw(flag ? "true" : "false")
        case .number(let number):
            if let literal = number.literal {
                bytes.append(contentsOf: literal.utf8)
            } else {
                write(number: number.double)
            }
        case .string(let string): write(string: string)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object): write(object: object)
        }
    }

    /// Appends an object as compact JSON, members in their order.
    public mutating func write(object: JSONObject) {
        bytes.append(UInt8(ascii: "{"))
        // Members read in place by index (no copy of each key and value).
        let entries = object.entries
        for index in entries.indices {
            writeMember(first: index == 0, key: entries[index].key, value: entries[index].value)
        }
        bytes.append(UInt8(ascii: "}"))
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
            bytes.append(contentsOf: String(describing: number).utf8)
        }
    }

    /// Appends an integer.
    public mutating func write(integer: Int64) {
        // The digits go into a stack buffer from its end, then into `bytes` in one copy
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
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Appends a quoted, escaped string.
    public mutating func write(string: String) {
        // The usual string, with nothing to escape, in one copy (JSONWriter+Plain).
        let done = string.utf8.withContiguousStorageIfAvailable { utf8 in
            appendPlain(UnsafeRawBufferPointer(start: nil, count: 0), UnsafeRawBufferPointer(utf8), nil)
        }
        guard done != true else { return }
        bytes.append(UInt8(ascii: "\""))
        // A native or small string is read where it is; any other is made native first.
        if string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) == nil {
            var string = string
            string.withUTF8 { appendEscaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 bytes, escaping what JSON requires, without quotes.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Runs that need no escape are found eight bytes at a time and copied whole.
        let raw = UnsafeRawBufferPointer(utf8)
        var runStart = 0
        var special = JSONStringScan.escapeFreeEnd(raw, from: 0)
        while special < utf8.count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<special]))
            appendEscape(utf8[special])
            runStart = special + 1
            special = JSONStringScan.escapeFreeEnd(raw, from: runStart)
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
    }

    /// Appends bytes that are already valid JSON (a stored row, say) without looking at them.
    public mutating func writeRaw(_ json: some Sequence<UInt8>) {
        bytes.append(contentsOf: json)
    }

    /// Appends bytes that are already valid JSON, as one copy. The generic form above, called
    /// from another module, is not specialized and appends byte by byte (a million-row
    /// snapshot took 3.3 s through it, 2.7 s with this overload, in the same run).
    public mutating func writeRaw(_ json: [UInt8]) {
        bytes.append(contentsOf: json)
    }

    /// Appends a slice of bytes that are already valid JSON, as one copy (see above).
    public mutating func writeRaw(_ json: ArraySlice<UInt8>) {
        bytes.append(contentsOf: json)
    }

    /// Appends ASCII text that is already valid JSON (punctuation, a literal).
    public mutating func writeRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func appendEscape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(UInt8(ascii: "u"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(hex.utf8Start[Int(byte >> 4)])
            bytes.append(hex.utf8Start[Int(byte & 0xF)])
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
