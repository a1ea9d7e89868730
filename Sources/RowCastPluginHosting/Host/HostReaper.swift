import RowCastJSON
import RowCastSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Collects the exit status of plugin hosts that were retired or dropped, so none stays a
/// zombie: each `adopt` also reaps whichever earlier ones have exited by now.
final class HostReaper: Sendable {
    /// The one reaper of the process.
    static let shared = HostReaper()

    private let pending = LockedValue<[(pid: pid_t, controlGroup: HostControlGroup?)]>([])

    /// Takes over waiting for `pid` (a retired host, or a killed one), and then emptying and
    /// removing its `controlGroup`.
    func adopt(_ pid: pid_t, controlGroup: HostControlGroup? = nil) {
        pending.withLock { $0.append((pid, controlGroup)) }
        reapExited()
    }

    /// Reaps every adopted host that has exited, after killing what is left of its process
    /// group (what it started), while its unreaped pid keeps the group's id from being reused.
    func reapExited() {
        pending.withLock { hosts in
            hosts.removeAll { host in
                let pid = host.pid
                var info = siginfo_t()
                guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return errno == ECHILD }
                guard info._sifields._sigchld.si_pid == pid else { return false }  // still running
                kill(-pid, SIGKILL)
                host.controlGroup?.killAll()
                var status: Int32 = 0
                let result = waitpid(pid, &status, WNOHANG)
                host.controlGroup?.remove()
                return result == pid || (result < 0 && errno == ECHILD)
            }
        }
    }

    /// Waits up to `milliseconds` for every adopted host to exit, then kills what is left.
    func reapAll(within milliseconds: Int) {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        while ContinuousClock.now < deadline, !pending.withLock({ $0.isEmpty }) {
            reapExited()
            usleep(2000)
        }
        let left = pending.withLock { $0 }
        for host in left {
            kill(-host.pid, SIGKILL)
            kill(host.pid, SIGKILL)
            host.controlGroup?.killAll()
        }
        for host in left {
            var status: Int32 = 0
            _ = waitpid(host.pid, &status, 0)
            host.controlGroup?.remove()
        }
        pending.withLock { $0.removeAll() }
    }
}
