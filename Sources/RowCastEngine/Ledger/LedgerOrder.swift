import Synchronization

/// The ranks of remembered answers shared by the engine loops of one rowcastd
/// (`engine.threads`): every loop numbers its answers from this one counter, so an answer's
/// rank says when it was recorded whichever loop recorded it, and trimming the ledger at a
/// start (oldest first, per client and overall) keeps the newest answers of every loop.
public final class LedgerOrder: Sendable {
    private let next = Atomic<UInt64>(1)

    /// A counter that starts at 1.
    public init() {}

    /// The next rank, above every rank handed out so far and above `floor` (what a ledger
    /// loaded from the store already holds).
    public func take(above floor: UInt64) -> UInt64 {
        var current = next.load(ordering: .relaxed)
        while true {
            let order = max(current, floor + 1)
            let (exchanged, original) = next.compareExchange(
                expected: current, desired: order + 1, ordering: .relaxed)
            if exchanged { return order }
            current = original
        }
    }
}
