import Foundation
import GRDB
import RowCastEngine

extension SQLiteFeedStore {
    /// A `StoreError` for whatever SQLite (or GRDB) threw while `during` (a verb phrase such as
    /// "committing to") the database at `path`.
    static func storeError(_ error: any Error, path: String, during: String) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let database = error as? DatabaseError else {
            return StoreError(.io, path: path, message: "error while \(during) \(path): \(error)")
        }
        let detail =
            "SQLite error \(database.extendedResultCode.rawValue): \(database.message ?? "\(database.resultCode)")"
        switch database.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return corruption(path: path, detail: detail)
        case .SQLITE_FULL:
            return StoreError(
                .full, path: path,
                message:
                    "no space left while \(during) \(path) (\(detail); \(freeSpace(StateDirectory.directory(of: path)))). Free disk space in \(StateDirectory.directory(of: path)) (or raise the file size limit)."
            )
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH:
            return StoreError(
                .unwritable, path: path,
                message:
                    "cannot write \(path) while \(during) it (\(detail)). Give the user rowcastd runs as write access to \(StateDirectory.directory(of: path)) and the files in it, or choose another --state-dir."
            )
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return StoreError(
                .locked, path: path,
                message:
                    "\(path) is locked by another program while \(during) it (\(detail)). Stop whatever else opened it."
            )
        case .SQLITE_IOERR:
            return StoreError(
                .io, path: path,
                message:
                    "I/O error while \(during) \(path) (\(detail); \(freeSpace(StateDirectory.directory(of: path)))). Check free space, the file size limit (ulimit -f), the disk and the system log."
            )
        default:
            return StoreError(
                .io, path: path,
                message: "error while \(during) \(path) (\(detail)). Check the disk and the system log.")
        }
    }

    /// The error for a damaged or foreign file: never repaired or deleted automatically.
    static func corruption(path: String, detail: String) -> StoreError {
        StoreError(
            .corrupt, path: path,
            message:
                "\(path) is damaged or is not an SQLite database (\(detail)). rowcastd will not change it: stop, move it aside together with its -wal and -shm files, then restore the latest backup there (docs/OPERATIONS.md, \"Backup and restore\") or start with an empty state."
        )
    }

    /// "N MiB free" on the file system holding `directory`, for messages.
    static func freeSpace(_ directory: String) -> String {
        guard let bytes = StateDirectory.freeBytes(in: directory) else { return "free space unknown" }
        return "\(bytes / (1 << 20)) MiB free there"
    }
}
