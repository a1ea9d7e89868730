#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock on an `ipc://` socket path, taken before the bind and held while rowcastd
/// runs: `PATH.lock` beside the socket, locked with `flock` and holding the pid (as PostgreSQL
/// locks its socket with `.s.PGSQL.5432.lock`). Binding an `ipc://` path replaces whatever
/// socket file is there, so without it a second rowcastd given the same path would start and
/// leave the first one unreachable. The lock goes with the process, so a rowcastd killed with
/// SIGKILL leaves nothing to clean up; the file itself stays.
///
/// Not `Sendable`: it owns the lock's descriptor.
final class SocketPathLock {
    /// The lock file.
    let path: String
    private var descriptor: Int32

    /// Locks `socketPath`; throws `SocketInUseError` naming the holder's pid when another
    /// process holds it, or when the lock file cannot be made.
    init(socketPath: String) throws(SocketInUseError) {
        path = socketPath + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw SocketInUseError(
                socket: socketPath,
                problem:
                    "cannot create its lock file \(path): \(String(cString: strerror(errno))); rowcastd's user must be able to create files beside the socket"
            )
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(descriptor, &buffer, buffer.count, 0)
            close(descriptor)
            let holder = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self).withoutSpaces : "?"
            throw SocketInUseError(
                socket: socketPath,
                problem:
                    "another rowcastd (pid \(holder)) serves it; binding would take its socket away. Stop that one, or give this one other ipc:// paths"
            )
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, pid, pid.count, 0)
        self.descriptor = descriptor
    }

    /// Releases the lock (the file stays, unlocked).
    func release() {
        guard descriptor >= 0 else { return }
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}

/// An `ipc://` socket path cannot be locked: another rowcastd serves it, or the lock file
/// cannot be made.
public struct SocketInUseError: Error, CustomStringConvertible {
    /// The socket path.
    public let socket: String
    /// What is wrong and what to do.
    public let problem: String
    /// `ipc socket PATH: PROBLEM`.
    public var description: String { "ipc socket \(socket): \(problem)" }
}

extension String {
    /// Without spaces, newlines and NULs (a pid as the lock file holds it).
    fileprivate var withoutSpaces: String {
        String(unicodeScalars.filter { !($0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\0") })
    }
}
