import RowCastEngine
import RowCastSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Who may read the state: its files hold every feed, past any CURVE read grant, so only the
/// user rowcastd runs as may read them (0600), and other users may not enter the directory.
///
/// `restrict` fixes what an older rowcastd or an operator left open, and says what it
/// changed; `createPrivately` makes the database before SQLite does, so it is never readable
/// by others even for a moment (SQLite gives the write-ahead log and shared-memory files the
/// database file's mode).
enum StateFileModes {
    /// The mode of every state file.
    static let fileMode: mode_t = 0o600

    /// Clears other users' access to `directory` and makes every state file in it
    /// (`rowcast.*`, regular files only) 0600. Returns one line per change, for the log.
    /// Throws when the directory is open to other users and rowcastd does not own it, naming
    /// the command that fixes it.
    static func restrict(directory: String) throws(StoreError) -> [String] {
        var changes: [String] = []
        var info = stat()
        guard stat(directory, &info) == 0 else { return [] }
        let mode = info.st_mode & 0o7777
        if mode & 0o007 != 0 {
            guard info.st_uid == geteuid(), chmod(directory, mode & ~0o007) == 0 else {
                throw StoreError(
                    .unwritable, path: directory,
                    message:
                        "state directory \(directory) is open to other users (mode \(FileMode.octal(mode))), who could read every feed in it, and rowcastd (uid \(geteuid())) cannot change that. Run: chmod o-rwx \(directory)"
                )
            }
            changes.append(
                "state directory \(directory): mode \(FileMode.octal(mode)) -> \(FileMode.octal(mode & ~0o007))")
        }
        guard let entries = opendir(directory) else { return changes }
        defer { closedir(entries) }
        while let entry = readdir(entries) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix("rowcast.") else { continue }
            let path = directory + "/" + name
            // Opened without following a link, then changed through the descriptor: a link
            // put in its place cannot redirect the change.
            let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var file = stat()
            guard fstat(descriptor, &file) == 0, file.st_mode & S_IFMT == S_IFREG else { continue }
            let fileMode = file.st_mode & 0o7777
            guard fileMode & 0o077 != 0 else { continue }
            guard fchmod(descriptor, Self.fileMode) == 0 else {
                let code = errno
                throw StoreError(
                    .unwritable, path: path,
                    message:
                        "state file \(path) is readable by other users (mode \(FileMode.octal(fileMode))) and cannot be made private: \(StateDirectory.describe(code)). Run: chmod 0600 \(path)"
                )
            }
            changes.append("state file \(path): mode \(FileMode.octal(fileMode)) -> \(FileMode.octal(Self.fileMode))")
        }
        return changes
    }

    /// Creates `path` empty with mode 0600 when it does not exist (SQLite takes an empty file
    /// as a new database).
    static func createPrivately(_ path: String) throws(StoreError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, Self.fileMode)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        let code = errno
        guard code != EEXIST else { return }
        throw StoreError(
            code == ENOSPC ? .full : .unwritable, path: path,
            message: "cannot create the database \(path): \(StateDirectory.describe(code)).")
    }
}
