import RowCastHTTP
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How the daemon's loop is doing, for `GET /healthz`: the loop thread records each finished
/// pass (`tick`, one clock read per pass, as with WATCHDOG=1) and its phase; the HTTP threads
/// read both. `Sendable`: its state is atomics.
public final class LoopHealth: Sendable {
    /// Where the loop is in its life.
    public enum Phase: UInt8, Sendable {
        /// Loading state and binding sockets; no pass yet.
        case starting
        /// Running passes.
        case running
        /// A stop was asked for: the batch in hand is answered, the sockets close.
        case draining
        /// The loop has ended.
        case stopped
    }

    private let lastTick = Atomic<Int64>(0)
    private let phaseValue = Atomic<UInt8>(Phase.starting.rawValue)
    private let stallLimit = Atomic<Int64>(5_000_000_000)

    /// A loop that has not started, reported stuck after `stall` without a pass.
    public init(stall: Duration = .seconds(5)) {
        setStall(stall)
    }

    /// How long a pass may take before the loop counts as stuck (`health_stall_ms`; a reload
    /// may change it).
    public func setStall(_ stall: Duration) {
        let (seconds, attoseconds) = stall.components
        stallLimit.store(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .relaxed)
    }

    /// The loop finished a pass (called on the loop thread).
    public func tick() {
        lastTick.store(Self.monotonicNanoseconds(), ordering: .relaxed)
    }

    /// The loop entered `phase`.
    public func enter(_ phase: Phase) {
        if phase == .running { tick() }
        phaseValue.store(phase.rawValue, ordering: .releasing)
    }

    /// The phase the loop is in.
    public var phase: Phase { Phase(rawValue: phaseValue.load(ordering: .acquiring)) ?? .stopped }

    /// What `/healthz` answers now.
    public func report() -> HealthReport {
        switch phase {
        case .starting:
            return HealthReport(
                isHealthy: false, state: "starting", detail: "rowcastd is loading its state and binding its sockets")
        case .draining:
            return HealthReport(
                isHealthy: false, state: "draining",
                detail: "rowcastd is stopping: it answers the batch in hand and closes its sockets")
        case .stopped:
            return HealthReport(isHealthy: false, state: "stopped", detail: "the loop has ended")
        case .running:
            let since = Self.monotonicNanoseconds() - lastTick.load(ordering: .relaxed)
            let milliseconds = since / 1_000_000
            if since > stallLimit.load(ordering: .relaxed) {
                return HealthReport(
                    isHealthy: false, state: "stuck",
                    detail:
                        "the loop has not finished a pass for \(milliseconds) ms (health_stall_ms: \(stallLimit.load(ordering: .relaxed) / 1_000_000)); a plugin call, a commit or a snapshot may be blocking it"
                )
            }
            return HealthReport(isHealthy: true, state: "ok", detail: "the loop finished a pass \(milliseconds) ms ago")
        }
    }

    private static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
