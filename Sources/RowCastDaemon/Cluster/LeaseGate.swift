/// A loop's check of its node's `LeaseDeadline`: whether it may serve its partitions in this
/// pass (docs/OPERATIONS.md, "Cluster", "Reads").
///
/// The loop takes the deadline (`sample`) before it applies the coordinator's changes, and
/// checks it against the clock once per pass (`check`). The coordinator sets the deadline after
/// posting its round's changes, so a deadline the loop took comes with every lease lost before
/// it already applied.
struct LeaseGate {
    /// The node's deadline, set by its coordinator.
    let deadline: LeaseDeadline
    /// The deadline as last taken, in nanoseconds of `CLOCK_MONOTONIC`.
    private var until = Int64.min
    /// Whether the last `check` found the deadline ahead: the partitions are served.
    private(set) var isCurrent = false

    /// A gate on `deadline`; closed until the first `sample`.
    init(deadline: LeaseDeadline) { self.deadline = deadline }

    /// Takes the deadline; call before applying the coordinator's changes.
    mutating func sample() { until = deadline.value }

    /// Whether the deadline taken is still ahead now; one clock read.
    @discardableResult
    mutating func check() -> Bool {
        isCurrent = LeaseDeadline.now() < until
        return isCurrent
    }
}
