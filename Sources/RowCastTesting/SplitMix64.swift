/// A small seeded random number generator (SplitMix64), for the tests and the benchmark:
/// a failing test replays from its seed, and every benchmark run measures the same data.
public struct SplitMix64: RandomNumberGenerator {
    /// The generator's state; the seed, before the first number.
    public var state: UInt64

    /// A generator seeded with `state`.
    public init(state: UInt64) {
        self.state = state
    }

    /// The next number of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
