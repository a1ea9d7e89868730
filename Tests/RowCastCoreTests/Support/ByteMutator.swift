import RowCastTesting

/// Seeded mutations of JSON texts for the differential tests of the fast lanes: one to three
/// edits each (a byte replaced, inserted or removed, or a short run repeated), with bytes that
/// matter to JSON (structure, digits, escapes, control and non-ASCII bytes).
struct ByteMutator {
    /// The bytes an edit puts in.
    static let interesting: [UInt8] =
        Array(#"{}[],:"\ 0159-.eEu/ntfx"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xA9, 0xED, 0xFF]

    private var random: SplitMix64

    /// A mutator whose edits replay from `seed`.
    init(seed: UInt64) { random = SplitMix64(state: seed) }

    /// `text`'s bytes with one to three edits.
    mutating func mutate(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let at = Int.random(in: 0..<bytes.count, using: &random)
            let byte = Self.interesting.randomElement(using: &random)!
            switch Int.random(in: 0..<4, using: &random) {
            case 0: bytes[at] = byte
            case 1: bytes.insert(byte, at: at)
            case 2: if bytes.count > 1 { bytes.remove(at: at) }
            default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 6)], at: at)
            }
        }
        return bytes
    }
}
