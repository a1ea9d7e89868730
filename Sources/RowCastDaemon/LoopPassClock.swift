import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// When one engine loop last finished a pass (monotonic nanoseconds; 0 before its first), as
/// `LoopHealth` judges it and the watchdog checks it. The loop's thread stores, any thread
/// reads: `Sendable`, its state is one atomic.
public final class LoopPassClock: Sendable {
    private let last = Atomic<Int64>(0)

    /// A clock with no pass yet.
    public init() {}

    /// The loop finished a pass now; returns the time recorded.
    @discardableResult
    public func tick() -> Int64 {
        let now = Self.monotonicNanoseconds()
        last.store(now, ordering: .relaxed)
        return now
    }

    /// When the loop last finished a pass; 0 before its first.
    public var lastPass: Int64 { last.load(ordering: .relaxed) }

    /// The monotonic clock the passes are measured on, in nanoseconds.
    public static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
