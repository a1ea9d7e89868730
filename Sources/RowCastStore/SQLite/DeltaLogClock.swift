import Foundation

/// The wall clock of the delta log: when a delta was logged, in unix milliseconds.
enum DeltaLogClock {
    /// Now, in unix milliseconds.
    static func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    /// When a delta logged `age` before `now` was logged, in unix milliseconds.
    static func before(_ age: Duration, now: Int64 = now()) -> Int64 {
        now - (age.components.seconds * 1000 + age.components.attoseconds / 1_000_000_000_000_000)
    }
}
