import CRowCastChecksum

/// The CRC32C a stored record carries in its `crc` column, over the record's fields in order.
/// Each text or blob is preceded by its length (4 bytes, little-endian), numbers are 8 bytes
/// little-endian, and an optional number is a 0 or 1 byte and then the number: so no two
/// different records run together into the same bytes.
///
/// It catches what SQLite does not look at: a changed byte inside a value (SQLite keeps no
/// page checksums), a value written to the wrong row or column. Written with every row, and
/// checked when the store loads and by `rowcastd --check-state`.
package struct RecordChecksum {
    private var state: UInt32 = 0xFFFF_FFFF

    /// An empty checksum.
    package init() {}

    /// The checksum of what was added.
    package var value: UInt32 { ~state }

    /// The value as stored in SQLite's INTEGER column.
    package var stored: Int64 { Int64(value) }

    /// Adds `length` bytes at `bytes`, after their length.
    package mutating func add(bytes: UnsafeRawPointer?, length: Int) {
        state = rowcast_crc32c_field(state, length > 0 ? bytes : nil, length)
    }

    /// Adds the UTF-8 of `text`.
    package mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add(bytes: $0.baseAddress, length: $0.count) }
    }

    /// Adds `bytes`.
    package mutating func add(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { add(bytes: $0.baseAddress, length: $0.count) }
    }

    /// Adds an optional text (nil and "" differ).
    package mutating func add(_ text: String?) {
        addFlag(text != nil)
        if let text { add(text) }
    }

    /// Adds `number`.
    package mutating func add(_ number: UInt64) {
        state = rowcast_crc32c_u64(state, number)
    }

    /// Adds `number`'s bits, or the absence of one. -0 counts as 0: SQLite stores a whole
    /// REAL as an integer, so -0 reads back as 0.
    package mutating func add(_ number: Double?) {
        addFlag(number != nil)
        if let number { add((number + 0.0).bitPattern) }
    }

    /// Adds `flag` as one byte.
    package mutating func add(_ flag: Bool) {
        addFlag(flag)
    }

    private mutating func addFlag(_ flag: Bool) {
        var byte: UInt8 = flag ? 1 : 0
        state = rowcast_crc32c_update(state, &byte, 1)
    }
}
