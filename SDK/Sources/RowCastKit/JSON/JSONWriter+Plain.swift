/// The writer's one-copy lane for strings that need no escape: a quoted string, with the
/// punctuation or key before it, is put together on the stack and appended to `bytes` at once.
/// Appending it in pieces (quote, text, quote, colon) cost an `Array` append of its own for
/// each piece, each with its uniqueness and capacity checks: about 250 instructions per string
/// of a row, most of a row's writing.
extension JSONWriter {
    /// The most bytes put together on the stack at once; anything longer goes in pieces.
    static let plainLaneCapacity = 256

    /// Appends `prefix` (JSON text as it is) and `string` quoted, as one copy when `string`
    /// needs no escape; else in pieces, with the same bytes.
    mutating func write(prefix: StaticString, string: String) {
        let prefixBytes = UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        let done = string.utf8.withContiguousStorageIfAvailable { utf8 in
            appendPlain(prefixBytes, UnsafeRawBufferPointer(utf8), nil)
        }
        guard done != true else { return }
        writeRaw(prefix)
        write(string: string)
    }

    /// Appends an object member, `,` first unless it is the first one: as one copy when the
    /// value is a string and neither it nor the key needs an escape; else in pieces.
    mutating func writeMember(first: Bool, key: String, value: JSONValue) {
        if case .string(let string) = value {
            let prefix: StaticString = first ? "" : ","
            let prefixBytes = UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
            let done = key.utf8.withContiguousStorageIfAvailable { keyUTF8 in
                string.utf8.withContiguousStorageIfAvailable { valueUTF8 in
                    appendPlain(prefixBytes, UnsafeRawBufferPointer(keyUTF8), UnsafeRawBufferPointer(valueUTF8))
                }
            }
            if done == true { return }
        }
        if !first { bytes.append(UInt8(ascii: ",")) }
        write(string: key)
        bytes.append(UInt8(ascii: ":"))
        write(value)
    }

    /// Appends `prefix` `"first"`, then `:"second"` when `second` is given, in one copy, and
    /// returns true; returns false, having appended nothing, when a string needs an escape or
    /// the whole is longer than `plainLaneCapacity`.
    mutating func appendPlain(_ prefix: UnsafeRawBufferPointer, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer?) -> Bool {
        let secondCount = second.map { $0.count + 3 } ?? 0
        let total = prefix.count + first.count + 2 + secondCount
        guard total <= Self.plainLaneCapacity,
              JSONStringScan.escapeFreeEnd(first, from: 0) == first.count
        else { return false }
        if let second, JSONStringScan.escapeFreeEnd(second, from: 0) != second.count { return false }
        withUnsafeTemporaryAllocation(byteCount: Self.plainLaneCapacity, alignment: 1) { lane in
            var offset = 0
            func put(_ part: UnsafeRawBufferPointer) {
                guard let base = part.baseAddress else { return }
                (lane.baseAddress! + offset).copyMemory(from: base, byteCount: part.count)
                offset += part.count
            }
            func put(_ byte: UInt8) {
                lane[offset] = byte
                offset += 1
            }
            put(prefix)
            put(UInt8(ascii: "\""))
            put(first)
            put(UInt8(ascii: "\""))
            if let second {
                put(UInt8(ascii: ":"))
                put(UInt8(ascii: "\""))
                put(second)
                put(UInt8(ascii: "\""))
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: lane[..<offset]).assumingMemoryBound(to: UInt8.self))
        }
        return true
    }
}
