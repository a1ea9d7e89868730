/// What rowcastd tells systemd while it loads its state, before it is ready: every
/// `interval`, `EXTEND_TIMEOUT_USEC=` (so a long load does not run past `TimeoutStartSec=`),
/// `STATUS=loading feed N of M`, and `WATCHDOG=1` when the watchdog asks for one (so
/// `WatchdogSec=` is met while the loop has not started yet). A pure schedule: the daemon
/// sends what `report` returns.
struct LoadProgress {
    /// How often a report goes out.
    static let interval: Duration = .seconds(1)
    /// How much longer each report asks systemd to wait: thirty reports' worth, so a load that
    /// stalls (a disk that stopped answering) still ends in a timeout.
    static let timeoutExtension: Duration = .seconds(30)

    private var last: ContinuousClock.Instant?

    /// A schedule whose first report is due at once.
    init() {}

    /// The message to send now that `done` of `total` feeds are loaded, or nil when the last
    /// report is recent. `watchdogDue` says whether a watchdog ping is due (asked only with a
    /// report, so it is not spent on a message that is not sent).
    mutating func report(
        done: Int, total: Int, at now: ContinuousClock.Instant, watchdogDue: () -> Bool
    ) -> NotifyMessage? {
        if let last, now - last < Self.interval { return nil }
        last = now
        let (seconds, attoseconds) = Self.timeoutExtension.components
        var message = NotifyMessage.extendTimeout(
            microseconds: UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000)
        )
        .adding(.status(total == 0 ? "loading the state" : "loading feed \(done) of \(total)"))
        if watchdogDue() { message = message.adding(.watchdog) }
        return message
    }
}
