import Foundation

/// The wall clock of the delta log: when a delta was logged, in unix milliseconds.
enum DeltaLogClock {
    /// Now, in unix milliseconds.
    static func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
}
