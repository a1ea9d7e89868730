/// When a plugin whose host keeps crashing or hanging is paused: its calls are then answered
/// `plugin_unavailable` at once, without a host, instead of each paying a restart or the call
/// deadline on rowcastd's loop. A pure type: the clock is passed in, so every rule is tested
/// with made-up instants (`CrashLoopBreakerTests`).
///
/// The rules (docs/PLUGINS.md, "Crash loops"):
/// - ``faultsToPause`` faults (crashes or timeouts) in a row, with no call answered between
///   them, pause the plugin; the faults before that restart the host at once.
/// - The first pause is ``firstPause``; each pause that follows within ``calmAfter`` of the last
///   fault doubles, up to ``longestPause``. After ``calmAfter`` without a fault everything is
///   forgotten: the faults before count for nothing, and the next pause is the first again.
/// - When a pause ends, the next call starts a host and is sent to it. If the host faults
///   before it answers a call, the plugin is paused again at once.
struct CrashLoopBreaker: Equatable {
    /// How many faults in a row pause the plugin.
    static let faultsToPause = 3
    /// The first pause.
    static let firstPause = Duration.seconds(1)
    /// The longest pause.
    static let longestPause = Duration.seconds(30)
    /// How long without a fault before the pause is the first one again.
    static let calmAfter = Duration.seconds(60)

    /// Faults since a call was last answered.
    private(set) var faultsInARow = 0
    /// The pause the next crash loop gets.
    private(set) var nextPause = firstPause
    /// Until when the plugin is paused, if it is or was.
    private(set) var pausedUntil: ContinuousClock.Instant?
    /// A pause ended and no call has been answered since.
    private var probing = false
    /// The last fault.
    private var lastFault: ContinuousClock.Instant?

    /// A fault at `now`: returns the pause it starts, or nil when the host is restarted at once.
    mutating func faulted(at now: ContinuousClock.Instant) -> Duration? {
        if let lastFault, now - lastFault >= Self.calmAfter {
            // A calm minute forgets the loop: old faults are not in a row with this one.
            nextPause = Self.firstPause
            faultsInARow = 0
            probing = false
        }
        lastFault = now
        faultsInARow += 1
        guard probing || faultsInARow >= Self.faultsToPause else { return nil }
        let pause = nextPause
        pausedUntil = now + pause
        nextPause = min(pause * 2, Self.longestPause)
        faultsInARow = 0
        probing = true
        return pause
    }

    /// The host answered a call: the faults so far were not in a row, and a pause that ended is
    /// over for good.
    mutating func answered() {
        faultsInARow = 0
        probing = false
    }

    /// How much longer the plugin is paused at `now`; nil when it is not.
    func remainingPause(at now: ContinuousClock.Instant) -> Duration? {
        guard let pausedUntil, now < pausedUntil else { return nil }
        return pausedUntil - now
    }
}
