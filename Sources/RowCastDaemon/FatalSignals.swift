#if canImport(Glibc)
import Glibc
#endif

/// The signals that must end rowcastd, whatever handlers the runtime installed: SIGABRT is
/// what systemd's watchdog (`WatchdogSec=`) sends to a service that stopped pinging.
///
/// Swift's runtime backtracer installs a handler for SIGABRT (and the other fatal signals).
/// For a fault the handler's return re-runs the faulting instruction, which then kills the
/// process; but a SIGABRT sent by another process is simply over when the handler returns, so
/// rowcastd used to survive the first one (the handler was then reset, and only a second one
/// killed it). A hung loop thus stayed up until systemd's `TimeoutAbortSec`.
public enum FatalSignals {
    /// The signals given back their default action (terminate, with a core dump).
    public static let defaulted: [Int32] = [SIGABRT]

    /// Restores the default action of every signal in `defaulted` and unblocks them in the
    /// calling thread (threads started later inherit its mask). A disposition inherited as
    /// "ignored" or a mask inherited as "blocked" from the parent is undone too. Call it first
    /// thing in `main`, before any thread starts.
    public static func restoreDefaults() {
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in defaulted {
            signal(number, SIG_DFL)
            sigaddset(&mask, number)
        }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
    }
}
