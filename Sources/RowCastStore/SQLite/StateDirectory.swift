import RowCastEngine
import RowCastSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The state directory, created if needed and locked for one rowcastd at a time with an
/// exclusive `flock` on its `rowcast.lock` file (`PIDLockFile`, held until `unlock` or the
/// process ends),
/// on a disk with at least `minimumFreeBytes` free.
///
/// Not `Sendable`: it owns the lock's file descriptor.
final class StateDirectory {
    /// The directory path.
    let path: String
    private let lock: PIDLockFile?

    /// Creates `path` (and missing parents) when absent, checks it is a writable directory,
    /// and takes its lock.
    init(path: String) throws(StoreError) {
        self.path = path
        try Self.create(path)
        guard access(path, W_OK | X_OK) == 0 else {
            let reason =
                errno == EROFS
                ? "it is on a read-only file system" : "the user rowcastd runs as (uid \(getuid())) cannot write to it"
            throw StoreError(
                .unwritable, path: path,
                message:
                    "state directory \(path) cannot be written: \(reason). Give that user write access, or choose another --state-dir."
            )
        }
        let lockPath = path + "/rowcast.lock"
        do {
            lock = try PIDLockFile(path: lockPath)
        } catch {
            switch error {
            case .cannotOpen(let code):
                throw StoreError(
                    code == ENOSPC ? .full : .unwritable, path: lockPath,
                    message:
                        "cannot create the lock file \(lockPath): \(Self.describe(code)). Check the state directory's permissions and free space."
                )
            case .held(let holder):
                throw StoreError(
                    .locked, path: path,
                    message:
                        "state directory \(path) is in use by another rowcastd (pid \(holder)). Stop that one, or give this one another --state-dir."
                )
            }
        }
        if let free = Self.freeBytes(in: path) {
            guard free >= Self.minimumFreeBytes else {
                unlock()
                throw StoreError(
                    .full, path: path,
                    message:
                        "the disk holding state directory \(path) is full: \(free / 1024) KiB free, and rowcastd needs at least \(Self.minimumFreeBytes >> 20) MiB to start (its write-ahead log and commits). Free disk space there, or choose another --state-dir."
                )
            }
        }
    }

    /// The existing directory `path`, locked against a rowcastd starting on it while it is read
    /// (`rowcastd --check-state`): nothing is created or checked for room, and a directory
    /// whose lock file cannot be opened (a read-only copy) is read without the lock, since no
    /// rowcastd can run there either. A rowcastd holding it is `StoreError` of kind `locked`.
    init(readingExisting path: String) throws(StoreError) {
        self.path = path
        do {
            lock = try PIDLockFile(path: path + "/rowcast.lock")
        } catch {
            switch error {
            case .cannotOpen:
                lock = nil
            case .held(let holder):
                throw StoreError(
                    .locked, path: path,
                    message:
                        "state directory \(path) is in use by rowcastd (pid \(holder)); stop it to check its state.")
            }
        }
    }

    /// The bytes free for rowcastd on the file system holding `directory`, or nil when unknown.
    static func freeBytes(in directory: String) -> UInt64? {
        var volume = statvfs()
        guard statvfs(directory, &volume) == 0 else { return nil }
        return UInt64(volume.f_bavail) * UInt64(volume.f_frsize)
    }

    /// The directory part of `path` (`.` when it has none, `/` for a file at the root).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The least free space rowcastd starts with (1 MiB): on a fuller disk it would start,
    /// serve reads and refuse every write (or stop at the first commit of the start itself).
    static let minimumFreeBytes: UInt64 = 1 << 20

    /// Releases the lock.
    func unlock() {
        lock?.release()
    }

    /// `strerror` of an errno value.
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    private static func create(_ path: String) throws(StoreError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw StoreError(
                    .unwritable, path: path,
                    message:
                        "state directory \(path) exists but is not a directory. Move it aside, or choose another --state-dir."
                )
            }
            return
        }
        var prefix = path.hasPrefix("/") ? "/" : ""
        let components = path.split(separator: "/")
        for (index, component) in components.enumerated() {
            prefix += component
            // The state directory itself is rowcastd's user's alone; parents it had to make
            // can be entered by the group.
            let mode: mode_t = index == components.count - 1 ? 0o700 : 0o750
            if stat(prefix, &info) != 0 && mkdir(prefix, mode) != 0 && errno != EEXIST {
                let code = errno
                throw StoreError(
                    code == ENOSPC ? .full : .unwritable, path: path,
                    message:
                        "cannot create state directory \(path) (at \(prefix)): \(describe(code)). Create it for the user rowcastd runs as, or choose another --state-dir."
                )
            }
            prefix += "/"
        }
    }
}

extension String {
    /// Without leading and trailing spaces and newlines.
    var trimmingSpaces: String {
        let bytes = Array(utf8)
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
