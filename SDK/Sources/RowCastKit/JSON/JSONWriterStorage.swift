/// The growable byte buffer behind a `JSONWriter`: a pointer, a count and a capacity, doubled
/// when full.
final class JSONWriterStorage {
    /// The first byte.
    private(set) var base: UnsafeMutablePointer<UInt8>
    /// How many bytes are written.
    var count = 0
    /// How many bytes fit before the buffer grows.
    private(set) var capacity: Int

    /// An empty buffer for at least `capacity` bytes.
    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// A buffer of its own with the same bytes.
    func copy() -> JSONWriterStorage {
        let copy = JSONWriterStorage(capacity: capacity)
        copy.base.update(from: base, count: count)
        copy.count = count
        return copy
    }

    /// Appends `length` bytes from `source`.
    @inline(__always)
    func append(_ source: UnsafeRawPointer, count length: Int) {
        if capacity - count < length { grow(toHold: count + length) }
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: length)
        count += length
    }

    /// Appends one byte.
    @inline(__always)
    func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        base[count] = byte
        count += 1
    }

    /// Calls `body` with the bytes written so far.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// Moves the bytes to a buffer of at least `needed` bytes, twice the capacity or more.
    private func grow(toHold needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}
