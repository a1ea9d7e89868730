#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A lock one process holds at a time: an exclusive `flock` on a file (created 0600) that
/// holds the holder's pid, for the next one's message. The lock goes with the process, so one
/// killed with SIGKILL leaves nothing to clean up; the file itself stays. rowcastd locks its
/// state directory (`rowcast.lock`) and each `ipc://` socket path (`PATH.lock`) this way.
///
/// Not `Sendable`: it owns the lock's descriptor.
public final class PIDLockFile {
    /// Why the lock was not taken.
    public enum Failure: Error, Equatable {
        /// The file could not be opened, created or locked (`errno`).
        case cannotOpen(errno: Int32)
        /// Another process holds it; its pid as the file says ("?" when unreadable).
        case held(by: String)
    }

    /// The lock file.
    public let path: String
    private var descriptor: Int32

    /// Takes the lock on `path` without waiting, and writes this process's pid into it.
    public init(path: String) throws(Failure) {
        self.path = path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .cannotOpen(errno: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            guard code == EWOULDBLOCK else {
                close(descriptor)
                throw .cannotOpen(errno: code)
            }
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(descriptor, &buffer, buffer.count, 0)
            close(descriptor)
            let digits = count > 0 ? buffer[0..<count].filter { $0 >= 0x30 && $0 <= 0x39 } : []
            throw .held(by: digits.isEmpty ? "?" : String(decoding: digits, as: UTF8.self))
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, pid, pid.count, 0)
        self.descriptor = descriptor
    }

    /// Releases the lock (the file stays, unlocked). Unlocked before the close: the lock
    /// belongs to the open file, which a child forked by another thread shares until its exec
    /// closes it, so a close alone could leave it locked for that moment.
    public func release() {
        guard descriptor >= 0 else { return }
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
