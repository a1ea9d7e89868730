import RowCastSupport

/// How many feeds each client owns, over every engine loop when several share the store
/// (`engine.threads`): each loop's engine counts its own feeds here too, and checks a client's
/// `max_feeds` against the sum, so a key's quota covers its feeds on every loop.
public final class FeedOwnerCounts: Sendable {
    private let counts = LockedValue<[String: Int]>([:])

    /// No feed owned yet.
    public init() {}

    /// The feeds `owner` owns on every loop.
    public func count(of owner: String) -> Int { counts.withLock { $0[owner, default: 0] } }

    /// Adds `delta` (1 or -1) to `owner`'s count.
    func add(_ delta: Int, to owner: String) {
        counts.withLock { counts in
            let next = counts[owner, default: 0] + delta
            counts[owner] = next > 0 ? next : nil
        }
    }
}
