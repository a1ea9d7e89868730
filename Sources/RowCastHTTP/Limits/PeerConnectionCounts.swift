/// How many connections each peer address holds, against a cap. Pure
/// (`PeerConnectionCountsTests`); `HTTPConnectionLimiter` keeps one behind a lock.
struct PeerConnectionCounts: Sendable, Equatable {
    /// The most connections one address may hold.
    let limit: Int
    /// Open connections by address; an address with none is absent.
    private(set) var counts: [String: Int] = [:]

    /// Counts for at most `limit` connections per address.
    init(limit: Int) { self.limit = limit }

    /// Counts a new connection from `peer` and returns true, or returns false (counting nothing)
    /// when `peer` already holds `limit`.
    mutating func admit(_ peer: String) -> Bool {
        let held = counts[peer, default: 0]
        guard held < limit else { return false }
        counts[peer] = held + 1
        return true
    }

    /// A connection `admit` counted for `peer` closed.
    mutating func release(_ peer: String) {
        guard let held = counts[peer] else { return }
        counts[peer] = held > 1 ? held - 1 : nil
    }

    /// How many connections `peer` holds.
    func held(by peer: String) -> Int { counts[peer, default: 0] }
}
