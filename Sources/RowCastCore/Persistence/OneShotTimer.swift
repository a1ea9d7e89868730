import CRowCastHost

#if canImport(Glibc)
import Glibc
#endif

/// A timer descriptor (timerfd) that becomes readable once, when it expires, until cleared.
///
/// Not `Sendable`: its owner's thread arms and clears it.
final class OneShotTimer {
    /// The descriptor, readable once the timer expired (until `clear`); -1 when none could be
    /// made (then the timer never fires, and waits only end later).
    let descriptor: Int32

    /// A disarmed timer.
    init() {
        descriptor = rowcast_timerfd()
    }

    /// Arms it to expire at `instant` (at once when that is past).
    func arm(at instant: ContinuousClock.Instant) {
        guard descriptor >= 0 else { return }
        let remaining = instant - .now
        let nanoseconds = remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000
        _ = rowcast_timerfd_arm(descriptor, max(1, nanoseconds))
    }

    /// Makes the descriptor unreadable until the timer expires again.
    func clear() {
        guard descriptor >= 0 else { return }
        var expirations: UInt64 = 0
        _ = read(descriptor, &expirations, 8)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }
}

@available(*, unavailable)
extension OneShotTimer: Sendable {}
