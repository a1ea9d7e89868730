/// When to send WATCHDOG=1: every half of the interval systemd gives in `$WATCHDOG_USEC`
/// (`WatchdogSec=`), as sd_watchdog_enabled(3) recommends. The loop that does the work asks
/// `isDue` on every pass, so a stuck loop stops the pings and systemd restarts the service.
public struct WatchdogSchedule: Sendable, Equatable {
    /// How often to ping: half of `WatchdogSec=`.
    public let interval: Duration
    private var last: ContinuousClock.Instant?

    /// A schedule pinging every `interval`.
    public init(interval: Duration) {
        precondition(interval > .zero, "a watchdog interval must be positive")
        self.interval = interval
    }

    /// The schedule systemd asks for in `environment`, or nil when there is no watchdog: no
    /// (or a zero or malformed) `$WATCHDOG_USEC`, or a `$WATCHDOG_PID` that is not `pid`.
    public init?(environment: [String: String], pid: Int32) {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else {
            return nil
        }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty, Int32(owner) != pid { return nil }
        self.init(interval: .microseconds(Int64(clamping: microseconds / 2)))
    }

    /// Whether a ping is due at `now` (the first call always is); records it when it is.
    public mutating func isDue(at now: ContinuousClock.Instant) -> Bool {
        if let last, now - last < interval { return false }
        last = now
        return true
    }

    /// How long until the next ping is due (zero when it is due now).
    public func timeUntilDue(at now: ContinuousClock.Instant) -> Duration {
        guard let last else { return .zero }
        return max(.zero, interval - (now - last))
    }
}
