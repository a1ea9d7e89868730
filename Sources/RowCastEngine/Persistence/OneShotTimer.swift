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

    /// When it was last armed to expire, until a `clear` read that expiry: a timer armed
    /// again for the same instant, or cleared when nothing can be readable, costs no system
    /// call (the commit pacing arms and clears it once or twice per batch).
    private var deadline: ContinuousClock.Instant?

    /// A disarmed timer.
    init() {
        descriptor = rowcast_timerfd()
    }

    /// Arms it to expire at `instant` (at once when that is past).
    func arm(at instant: ContinuousClock.Instant) {
        guard descriptor >= 0, deadline != instant else { return }
        let remaining = instant - .now
        let nanoseconds =
            remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000
        _ = rowcast_timerfd_arm(descriptor, max(1, nanoseconds))
        deadline = instant
    }

    /// Makes the descriptor unreadable until the timer expires again. Before the instant it
    /// was armed for nothing is readable; from then on it reads until the expiry is taken
    /// (the kernel's timer may fire a little after that instant).
    func clear() {
        guard descriptor >= 0, let deadline, ContinuousClock.now >= deadline else { return }
        var expirations: UInt64 = 0
        if read(descriptor, &expirations, 8) == 8 { self.deadline = nil }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }
}

@available(*, unavailable)
extension OneShotTimer: Sendable {}
