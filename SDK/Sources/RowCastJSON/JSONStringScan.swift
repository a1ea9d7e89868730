/// The byte scans under every JSON string reader and writer here (`JSONParser`, `JSONWriter`,
/// and rowcastd's fast lanes for requests and plugin output): where a run of plain string
/// bytes ends.
public enum JSONStringScan {
    /// The offset of the first byte at or after `start` that a string reader must look at (a
    /// quote, a backslash, a control character or a byte that is not ASCII), or the end.
    @inlinable @inline(__always)
    public static func plainASCIIEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        specialByteOffset(bytes, from: start, stopsAtNonASCII: true)
    }

    /// The offset of the first byte at or after `start` that a JSON writer must escape (a quote,
    /// a backslash or a control character), or the end. Bytes that are not ASCII pass: a
    /// writer copies valid UTF-8 as it is.
    @inlinable @inline(__always)
    public static func escapeFreeEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        specialByteOffset(bytes, from: start, stopsAtNonASCII: false)
    }

    /// Both scans, eight bytes at a time: each test below is nonzero in the high bit of the
    /// first byte of its kind (borrows only reach the bytes after it), so the lowest bit set
    /// says where that byte is, with no byte-by-byte search after a hit. A byte of 0x80 or more
    /// is flagged only by the last test (`word` itself), which `stopsAtNonASCII` leaves out:
    /// its complement's high bit is clear for the others. Callers pass a constant, so each is
    /// compiled without the branch. `offset` starts at or below the end and never passes it,
    /// so its sums are made without overflow checks.
    @inlinable @inline(__always)
    static func specialByteOffset(_ bytes: UnsafeRawBufferPointer, from start: Int, stopsAtNonASCII: Bool) -> Int {
        var offset = start
        let count = bytes.count
        while offset &+ 8 <= count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let special = specialBits(word, stopsAtNonASCII: stopsAtNonASCII)
            if special != 0 { return offset &+ special.trailingZeroBitCount >> 3 }
            offset &+= 8
        }
        while offset < count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
                || (stopsAtNonASCII && byte >= 0x80)
            {
                break
            }
            offset &+= 1
        }
        return offset
    }

    /// The high bit of each byte of `word` that a scan stops at, as described above (and
    /// some of the bytes after the first, which only a search for the first may ignore):
    /// zero exactly when the eight bytes hold none.
    @inlinable @inline(__always)
    static func specialBits(_ word: UInt64, stopsAtNonASCII: Bool) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let nonASCIIMask: UInt64 = stopsAtNonASCII ? ~0 : 0
        return
            (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
            | (word & nonASCIIMask)) & highBits
    }
}
