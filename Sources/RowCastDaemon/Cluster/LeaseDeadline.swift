import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Until when a cluster node surely still holds the leases its coordinator last renewed, by
/// the node's own monotonic clock (`CLOCK_MONOTONIC`, which keeps running while the process
/// is stopped): the loops serve their partitions only before it (docs/OPERATIONS.md,
/// "Cluster", "Reads").
///
/// The coordinator sets it at each renewal to the monotonic time taken before the round's
/// first query plus the lease, less `margin`. The store sets a lease's expiry to its own time
/// of the renewal plus the lease, and that time is later than the local instant taken before
/// the query, so the deadline is never later than the real expiry (with the margin, not even
/// when the two clocks' rates differ by up to a tenth).
///
/// One atomic: the coordinator thread stores, every loop loads it once per pass.
final class LeaseDeadline: Sendable {
    /// What is kept off the lease: a tenth of it, for clock rates that differ between this
    /// node and the store's server, and a round that takes long.
    static func margin(of lease: Duration) -> Duration { lease / 10 }

    private let nanoseconds = Atomic<Int64>(.min)

    /// No lease renewed yet: nothing is served.
    init() {}

    /// The deadline, in nanoseconds of `CLOCK_MONOTONIC`; `Int64.min` before the first renewal.
    var value: Int64 { nanoseconds.load(ordering: .acquiring) }

    /// A renewal whose round began at `start` (`LeaseDeadline.now()`) for leases of `lease`:
    /// the deadline moves to `start + lease - margin`. Set after the round's changes were
    /// posted to the loops, so a loop that sees the new deadline takes those changes too.
    func renewed(at start: Int64, lease: Duration) {
        let length = Self.nanoseconds(lease) - Self.nanoseconds(Self.margin(of: lease))
        nanoseconds.store(start + length, ordering: .releasing)
    }

    /// The monotonic clock now, in nanoseconds.
    static func now() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
