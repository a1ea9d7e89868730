/// A results frame (``HostFrame/Tag/results``) built one result at a time, each plugin output
/// written straight into the frame: tag, count, then per result its status (four bytes), its
/// flags (1: overflowed, 2: unsupported) and its output as a block (empty when overflowed).
///
/// A plugin host keeps one and reuses its buffer for every chunk, so a rendered row costs no
/// array of its own between the plugin's sink and the channel.
public struct HostResultsFrame {
    /// The frame so far; the count is right only after ``finished()``.
    private var bytes: [UInt8] = []
    /// How many results were appended.
    public private(set) var count = 0

    /// An empty frame with room for `capacity` bytes.
    public init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
        clear()
    }

    /// Appends one result: `body` appends the output to the array it is given (after what is
    /// there) and returns the status and flags. An overflowed result keeps no output.
    public mutating func append(_ body: (inout [UInt8]) -> (status: Int32, overflowed: Bool, unsupported: Bool)) {
        let header = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 9))
        let start = bytes.count
        let result = body(&bytes)
        if result.overflowed { bytes.removeSubrange(start...) }
        store(UInt32(bitPattern: result.status), at: header)
        bytes[header + 4] = (result.overflowed ? 1 : 0) | (result.unsupported ? 2 : 0)
        store(UInt32(bytes.count - start), at: header + 5)
        count += 1
    }

    /// The frame's bytes, with its count.
    public mutating func finished() -> [UInt8] {
        store(UInt32(count), at: 1)
        return bytes
    }

    /// The largest buffer a frame keeps for its next chunk: a chunk of 512 car rows takes about
    /// 150 KiB, and one that a plugin's huge (or overflowing) output grew further is let go.
    public static let keptCapacity = 1 << 20

    /// Empties the frame for the next chunk, keeping its buffer unless it grew past `keptCapacity`.
    public mutating func clear() {
        bytes.removeAll(keepingCapacity: bytes.capacity <= Self.keptCapacity)
        bytes.append(HostFrame.Tag.results.rawValue)
        bytes.append(contentsOf: repeatElement(0, count: 4))
        count = 0
    }

    private mutating func store(_ value: UInt32, at offset: Int) {
        bytes[offset] = UInt8(truncatingIfNeeded: value)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[offset + 3] = UInt8(truncatingIfNeeded: value >> 24)
    }
}
