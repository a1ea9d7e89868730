/// A job's input bytes as a dictionary key by content (section headers, whose input is
/// written afresh for each call), hashed in one pass over the bytes: `[UInt8]`'s own
/// hashing feeds the hasher a byte at a time, which cost a notable share of the loop's time
/// with plugin hosts (two hashes per item of every batch).
struct JobInputKey: Hashable {
    /// The input bytes.
    var bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
