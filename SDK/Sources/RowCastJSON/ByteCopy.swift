/// Copies of a few bytes, as most JSON strings, keys and punctuation are, without calling
/// `memcpy` (its call and its dispatch on the length cost more than a copy of a few bytes,
/// and a row and its item make some thirty such copies).
@usableFromInline enum ByteCopy {
    /// Copies `count` bytes from `source` to `destination`, which do not overlap. Up to 16
    /// bytes take two loads and two stores of the widest word that fits, the second ending at
    /// the last byte (the two overlap when `count` is not twice the word); longer copies go
    /// to `memcpy`. No byte outside either range is read or written.
    @inlinable @inline(__always)
    static func copy(to destination: UnsafeMutableRawPointer, from source: UnsafeRawPointer, count: Int) {
        if count >= 8 {
            guard count <= 16 else {
                destination.copyMemory(from: source, byteCount: count)
                return
            }
            let head = source.loadUnaligned(as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            destination.storeBytes(of: head, as: UInt64.self)
            destination.storeBytes(of: tail, toByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 4 {
            let head = source.loadUnaligned(as: UInt32.self)
            let tail = source.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
            destination.storeBytes(of: head, as: UInt32.self)
            destination.storeBytes(of: tail, toByteOffset: count &- 4, as: UInt32.self)
        } else if count > 0 {
            // One to three bytes: the first, the middle and the last (some of them the same).
            let first = source.load(as: UInt8.self)
            let middle = source.load(fromByteOffset: count >> 1, as: UInt8.self)
            let last = source.load(fromByteOffset: count &- 1, as: UInt8.self)
            destination.storeBytes(of: first, as: UInt8.self)
            destination.storeBytes(of: middle, toByteOffset: count >> 1, as: UInt8.self)
            destination.storeBytes(of: last, toByteOffset: count &- 1, as: UInt8.self)
        }
    }
}
