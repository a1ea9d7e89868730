import Synchronization

/// What the daemon loop is asked to do from other threads: stop, or reload. `Sendable`
/// because its state is two atomics; the loop looks at it on every pass (at least every
/// 100 ms).
public final class StopSignal: Sendable {
    private let stopRequested = Atomic<Bool>(false)
    private let reloadRequested = Atomic<Bool>(false)

    /// A signal with nothing requested.
    public init() {}

    /// Whether a stop was asked for.
    public var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    /// Asks the loop to stop after the batch in hand (its deltas and replies still go out).
    public func requestStop() { stopRequested.store(true, ordering: .releasing) }

    /// Asks the loop to reload (configuration and plugins) at the end of the pass.
    public func requestReload() { reloadRequested.store(true, ordering: .releasing) }

    /// Takes a pending reload request, if any.
    public func takeReloadRequest() -> Bool { reloadRequested.exchange(false, ordering: .acquiringAndReleasing) }
}
