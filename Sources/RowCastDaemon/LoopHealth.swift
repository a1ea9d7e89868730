import RowCastHTTP
import Synchronization

/// How the daemon's loop is doing, for `GET /healthz`: the loop thread records each finished
/// pass (`tick`, one clock read per pass, as with WATCHDOG=1) and its phase; the HTTP threads
/// read both. With several engine loops (`track(loops:)`) each loop ticks a `LoopPassClock` of
/// its own, and one loop that stops passing makes the daemon stuck. `Sendable`: its state is
/// atomics, and the list of clocks behind a mutex that only `track`, the HTTP threads and the
/// watchdog check take.
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

    private let first = LoopPassClock()
    private let clocks: Mutex<[LoopPassClock]>
    private let phaseValue = Atomic<UInt8>(Phase.starting.rawValue)
    private let stallLimit = Atomic<Int64>(5_000_000_000)

    /// A loop that has not started, reported stuck after `stall` without a pass.
    public init(stall: Duration = .seconds(5)) {
        clocks = Mutex([first])
        setStall(stall)
    }

    /// Judges `loops` engine loops from now on (`engine.threads`), each ticking `clock(of:)`;
    /// the first is the one `tick` records.
    public func track(loops: Int) {
        clocks.withLock { clocks in
            while clocks.count < loops { clocks.append(LoopPassClock()) }
        }
    }

    /// The pass clock of loop `index` (0 with one loop); `track(loops:)` first.
    public func clock(of index: Int) -> LoopPassClock {
        clocks.withLock { $0[index] }
    }

    /// Whether every loop that has passed at all passed again at or after `nanoseconds`
    /// (`LoopPassClock.monotonicNanoseconds`): the watchdog's check, so one loop that hangs
    /// stops WATCHDOG=1 even while another sends it. A loop still loading its state (no pass
    /// yet) is not judged, as `/healthz` does not judge a daemon that is starting.
    public func everyLoopPassed(since nanoseconds: Int64) -> Bool {
        clocks.withLock { clocks in
            clocks.allSatisfy { $0.lastPass == 0 || $0.lastPass >= nanoseconds }
        }
    }

    /// How long a pass may take before the loop counts as stuck (`health_stall_ms`; a reload
    /// may change it).
    public func setStall(_ stall: Duration) {
        let (seconds, attoseconds) = stall.components
        stallLimit.store(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .relaxed)
    }

    /// The loop finished a pass (called on the loop thread).
    public func tick() {
        first.tick()
    }

    /// The loop entered `phase`.
    public func enter(_ phase: Phase) {
        if phase == .running {
            for clock in clocks.withLock({ $0 }) { clock.tick() }
        }
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
            // The loop that passed longest ago speaks for all of them.
            let clocks = clocks.withLock { $0 }
            let (index, oldest) = clocks.enumerated().map { ($0.offset, $0.element.lastPass) }.min { $0.1 < $1.1 }!
            let since = LoopPassClock.monotonicNanoseconds() - oldest
            let milliseconds = since / 1_000_000
            let loop = clocks.count == 1 ? "the loop" : "the loop \(EngineLoopSlot.threadName(of: index))"
            if since > stallLimit.load(ordering: .relaxed) {
                return HealthReport(
                    isHealthy: false, state: "stuck",
                    detail:
                        "\(loop) has not finished a pass for \(milliseconds) ms (health_stall_ms: \(stallLimit.load(ordering: .relaxed) / 1_000_000)); a plugin call, a commit or a snapshot may be blocking it"
                )
            }
            if clocks.count > 1 {
                return HealthReport(
                    isHealthy: true, state: "ok",
                    detail: "every one of the \(clocks.count) loops finished a pass within the last \(milliseconds) ms")
            }
            return HealthReport(isHealthy: true, state: "ok", detail: "the loop finished a pass \(milliseconds) ms ago")
        }
    }
}
