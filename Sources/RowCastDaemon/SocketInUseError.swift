import RowCastSupport

#if canImport(Glibc)
import Glibc
#endif

/// An `ipc://` socket path cannot be locked: another rowcastd serves it, or the lock file
/// cannot be made.
///
/// Binding an `ipc://` path replaces whatever socket file is there, so before the bind rowcastd
/// locks `PATH.lock` beside it (`PIDLockFile`, as PostgreSQL locks `.s.PGSQL.5432.lock`) and
/// holds it while it runs: a second rowcastd given the same path stops with this error instead
/// of leaving the first one unreachable.
public struct SocketInUseError: Error, CustomStringConvertible {
    /// The socket path.
    public let socket: String
    /// What is wrong and what to do.
    public let problem: String
    /// Whether another process holds the path (else the lock file could not be made).
    public var isHeld = false
    /// `ipc socket PATH: PROBLEM`.
    public var description: String { "ipc socket \(socket): \(problem)" }

    /// Locks the socket path `socket` (its `.lock` file), or says why it cannot.
    static func lock(_ socket: String) throws(SocketInUseError) -> PIDLockFile {
        let path = socket + ".lock"
        do {
            return try PIDLockFile(path: path)
        } catch {
            switch error {
            case .cannotOpen(let code):
                throw SocketInUseError(
                    socket: socket,
                    problem:
                        "cannot create its lock file \(path): \(String(cString: strerror(code))); rowcastd's user must be able to create files beside the socket"
                )
            case .held(let holder):
                throw SocketInUseError(
                    socket: socket,
                    problem:
                        "another rowcastd (pid \(holder)) serves it; binding would take its socket away. Stop that one, or give this one other ipc:// paths",
                    isHeld: true)
            }
        }
    }
}
