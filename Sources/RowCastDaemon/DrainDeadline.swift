import Logging
import RowCastSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A hard bound on a stop. Armed by the first stop signal, it ends the process with
/// ``exitStatus`` when the drain has not finished within its timeout (`drain_timeout_ms`): a
/// loop stuck in a plugin never sees the stop request, and would otherwise keep the process
/// alive until systemd's SIGKILL (`TimeoutStopSec=`), or forever outside systemd.
///
/// Runs on a thread of its own (`rowcast-drain`), so neither a stuck loop nor a busy
/// cooperative pool can delay it. `Sendable`: its only state is an atomic.
public final class DrainDeadline: Sendable {
    /// The exit status when the deadline passes (EX_SOFTWARE): the drain did not finish.
    public static let exitStatus: Int32 = 70

    /// How long a drain may take.
    public let timeout: Duration
    private let logger: Logger
    private let expire: @Sendable () -> Void
    private let armed = Atomic<Bool>(false)

    /// A deadline of `timeout`; `expire` runs when it passes (by default `_exit(70)`, which
    /// skips every cleanup: the store is crash-safe, and the next start sees an unclean stop).
    public init(
        timeout: Duration, logger: Logger, expire: @escaping @Sendable () -> Void = { _exit(DrainDeadline.exitStatus) }
    ) {
        self.timeout = timeout
        self.logger = logger
        self.expire = expire
    }

    /// The timeout in whole milliseconds, for logs.
    public var timeoutMilliseconds: Int64 {
        timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
    }

    /// Whether the deadline was armed.
    public var isArmed: Bool { armed.load(ordering: .acquiring) }

    /// Starts the countdown; later calls do nothing. The process is not expected to be alive
    /// when it ends: a drain that finishes exits the process first.
    public func arm() {
        guard !armed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let milliseconds = timeoutMilliseconds
        let logger = self.logger
        let expire = self.expire
        NamedThread.start("rowcast-drain") {
            while ContinuousClock.now < deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                let microseconds = min(
                    left.components.seconds * 1_000_000 + left.components.attoseconds / 1_000_000_000_000, 100_000)
                usleep(UInt32(max(microseconds, 1)))
            }
            logger.critical(
                "the drain did not finish within drain_timeout_ms: exiting without a clean stop",
                metadata: [
                    "drainTimeoutMs": "\(milliseconds)",
                    "exitStatus": "\(DrainDeadline.exitStatus)",
                ])
            expire()
        }
    }
}
