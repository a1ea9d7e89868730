import RowCastSupport

/// How many feeds each client owns, over every engine loop when several share the store
/// (`engine.threads`): each loop's engine counts its own feeds here too, and checks a client's
/// `max_feeds` against the sum, so a key's quota covers its feeds on every loop. A request
/// about to create a feed takes its place here when it checks the quota (`reserve`), and gives
/// it back when it ends without creating it.
public final class FeedOwnerCounts: Sendable {
    private let counts = LockedValue<[String: Int]>([:])

    /// No feed owned yet.
    public init() {}

    /// The feeds `owner` owns on every loop.
    public func count(of owner: String) -> Int { counts.withLock { $0[owner, default: 0] } }

    /// Counts one more feed of `owner` when it owns fewer than `quota`, in one step, so two
    /// loops creating feeds of one client at once cannot both take its last place; false when
    /// it owns `quota` already.
    func reserve(for owner: String, quota: Int) -> Bool {
        counts.withLock { counts in
            guard counts[owner, default: 0] < quota else { return false }
            counts[owner, default: 0] += 1
            return true
        }
    }

    /// Adds `delta` (1 or -1) to `owner`'s count.
    func add(_ delta: Int, to owner: String) {
        counts.withLock { counts in
            let next = counts[owner, default: 0] + delta
            counts[owner] = next > 0 ? next : nil
        }
    }
}
