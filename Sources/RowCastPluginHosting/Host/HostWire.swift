/// Appends the little-endian integers and byte strings of the host protocol.
public struct HostWireWriter {
    /// What was written.
    public private(set) var bytes: [UInt8] = []

    /// A writer with room for `capacity` bytes.
    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// One byte.
    public mutating func append(_ value: UInt8) { bytes.append(value) }

    /// Four bytes, little-endian.
    public mutating func append(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    /// Bytes as they are.
    public mutating func append(_ value: [UInt8]) { bytes.append(contentsOf: value) }

    /// A length (four bytes), then the bytes.
    public mutating func appendBlock(_ value: [UInt8]) {
        append(UInt32(value.count))
        append(value)
    }

    /// Forgets what was written, keeping the room unless it grew past `keptCapacity`.
    public mutating func removeAll(keepingCapacityUpTo keptCapacity: Int) {
        bytes.removeAll(keepingCapacity: bytes.capacity <= keptCapacity)
    }
}

/// Reads what ``HostWireWriter`` wrote, checking every length against what is left.
public struct HostWireReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    /// A reader over `bytes`.
    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    /// Whether everything was read.
    public var isAtEnd: Bool { position == bytes.endIndex }

    /// One byte.
    public mutating func uint8() throws(HostChannelError) -> UInt8 {
        guard position < bytes.endIndex else { throw HostChannelError("a frame cut short") }
        defer { position += 1 }
        return bytes[position]
    }

    /// Four bytes, little-endian.
    public mutating func uint32() throws(HostChannelError) -> UInt32 {
        guard bytes.endIndex - position >= 4 else { throw HostChannelError("a frame cut short") }
        defer { position += 4 }
        return UInt32(bytes[position]) | UInt32(bytes[position + 1]) << 8 | UInt32(bytes[position + 2]) << 16 | UInt32(
            bytes[position + 3]) << 24
    }

    /// A length (four bytes), then that many bytes.
    public mutating func block() throws(HostChannelError) -> [UInt8] {
        Array(bytes[try blockRange()])
    }

    /// A length (four bytes), then that many bytes: where they are in the frame (indices of
    /// the slice the reader was made over), for a reader that uses them in place.
    public mutating func blockRange() throws(HostChannelError) -> Range<Int> {
        let count = Int(try uint32())
        guard bytes.endIndex - position >= count else {
            throw HostChannelError("a block of \(count) bytes in a frame with \(bytes.endIndex - position) left")
        }
        defer { position += count }
        return position..<(position + count)
    }

    /// The rest of the frame.
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.endIndex }
        return Array(bytes[position...])
    }
}
