import CRowCastHost
import Foundation
import RowCastWire

#if canImport(Glibc)
import Glibc
#endif

/// What the cluster coordinator's thread and the daemon's loop hand each other. The loop
/// watches `wakeDescriptor` (an eventfd, readable while something waits for it) and takes the
/// changes between batches; it hands back the partitions it stopped serving, whose leases the
/// coordinator then releases.
///
/// `@unchecked Sendable`: every member but the descriptor is guarded by `lock`.
final class ClusterExchange: @unchecked Sendable {
    /// What the loop takes in one go.
    struct Changes {
        /// Partitions whose leases were taken: load their feeds and serve them.
        var acquired: Set<Partition> = []
        /// Partitions whose leases were lost (another node took them, or they could not be
        /// renewed in time): stop serving them at once.
        var lost: Set<Partition> = []
        /// Partitions another live node should own now: stop serving them, then hand them back.
        var unwanted: Set<Partition> = []
        /// The cluster as last read.
        var view: ClusterView
    }

    private let lock = NSLock()
    private var pending: Changes
    private var hasPending = false
    /// Between a `take` that returned changes and the loop's `applied`.
    private var applying = false
    private var released: Set<Partition> = []
    /// Readable while changes wait for the loop.
    let wakeDescriptor: Int32

    /// An exchange for `node`.
    init(node: String) {
        pending = Changes(view: ClusterView(node: node))
        wakeDescriptor = rowcast_eventfd()
    }

    deinit { if wakeDescriptor >= 0 { close(wakeDescriptor) } }

    /// The coordinator's round: adds what changed, replaces the view, and wakes the loop when
    /// it has something to do.
    func post(acquired: Set<Partition>, lost: Set<Partition>, unwanted: Set<Partition>, view: ClusterView) {
        lock.lock()
        pending.acquired.formUnion(acquired)
        pending.acquired.subtract(lost)
        pending.lost.formUnion(lost)
        pending.unwanted = unwanted
        pending.view = view
        let wake = !acquired.isEmpty || !lost.isEmpty || !unwanted.isEmpty
        if wake { hasPending = true }
        lock.unlock()
        if wake {
            var one: UInt64 = 1
            _ = write(wakeDescriptor, &one, 8)
        }
    }

    /// The view as last read, for status and forwarding.
    var view: ClusterView {
        lock.lock()
        defer { lock.unlock() }
        return pending.view
    }

    /// Whether changes wait for the loop (`take`).
    var hasChanges: Bool {
        lock.lock()
        defer { lock.unlock() }
        return hasPending
    }

    /// Whether the loop applied everything posted: nothing waits, and nothing taken is still
    /// being applied.
    var isSettled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !hasPending && !applying
    }

    /// The loop finished applying what it took last (`take`).
    func applied() {
        lock.lock()
        applying = false
        lock.unlock()
    }

    /// The loop's turn: what changed since it last took, or nil when nothing did; call
    /// `applied` once they are applied.
    func take() -> Changes? {
        var count: UInt64 = 0
        _ = read(wakeDescriptor, &count, 8)
        lock.lock()
        defer { lock.unlock() }
        guard hasPending else { return nil }
        let taken = pending
        pending.acquired = []
        pending.lost = []
        pending.unwanted = []
        hasPending = false
        applying = true
        return taken
    }

    /// The loop stopped serving `partitions` (or never served them): their leases may go.
    func handBack(_ partitions: Set<Partition>) {
        guard !partitions.isEmpty else { return }
        lock.lock()
        released.formUnion(partitions)
        lock.unlock()
    }

    /// The coordinator's turn: what the loop handed back since it last took.
    func takeReleased() -> Set<Partition> {
        lock.lock()
        defer { lock.unlock() }
        let taken = released
        released = []
        return taken
    }
}
