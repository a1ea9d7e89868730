import Foundation
import GRDB
import RowCastEngine

/// Whether the database still holds the history that `rowcast.position` says it reached.
///
/// The marker is rewritten after every commit, so it names the store and the commit count the
/// daemon last served. A database that is missing, empty (0 bytes), holds no rowcastd state,
/// is another store, or is behind that count has lost history: subscribers saw changes it no
/// longer has. (Being behind after a reboot that followed an unclean stop at durability
/// normal is the documented price of that setting, and only starts new epochs.) Such a start
/// is refused (`StoreError.Kind.lost`, exit 65) until an operator
/// accepts the loss (`--accept-state-loss`), because starting anyway would look, to every
/// client, like a fresh or older service.
///
/// The check reads the database through a read-only connection before anything opens it for
/// writing, so a refused database and its write-ahead log are left exactly as they were.
struct StateLossCheck {
    /// The database file.
    let databasePath: String
    /// The commit marker beside it.
    let marker: CommitMarker

    /// What the database lacks compared with the marker, or nil when it holds that history
    /// (or when there is no marker, or the marker reached no commit: nothing to compare).
    func missingHistory() -> String? {
        guard let position = marker.read(), position.commits > 0 else { return nil }
        let reached = "\(marker.path) shows that store \(position.storeID) had reached \(position.commits) commits"
        var info = stat()
        guard stat(databasePath, &info) == 0 else {
            return "the database \(databasePath) is missing, but \(reached)"
        }
        guard info.st_size > 0 else {
            return "the database \(databasePath) is empty (0 bytes), but \(reached)"
        }
        // A file SQLite cannot read is not judged here: opening it reports the damage.
        guard let (meta, commits) = try? Self.readMeta(databasePath) else { return nil }
        guard let storeID = meta["store_id"] else {
            return
                "the database \(databasePath) holds no rowcastd state (no store id; its write-ahead log may be damaged or gone), but \(reached)"
        }
        guard storeID == position.storeID else {
            return "the database \(databasePath) is another store (\(storeID)), but \(reached)"
        }
        // Losing the last commits to a power failure is what durability normal allows
        // (docs/OPERATIONS.md, "Group commit and durability"): new epochs, no refusal.
        guard commits >= position.commits || SQLiteFeedStore.rebootAfterUncleanStop(meta: meta) != nil else {
            return
                "the database \(databasePath) holds \(commits) commits of store \(storeID), but \(reached): the last \(position.commits - commits) are gone (an older copy, or commits lost with the write-ahead log)"
        }
        return nil
    }

    /// The refusal for `missing`: what is gone, and the two ways on.
    static func refusal(_ missing: String, databasePath: String, markerPath: String) -> StoreError {
        StoreError(
            .lost, path: databasePath,
            message:
                "state was lost: \(missing). rowcastd does not start on it, since clients would take it for the state they saw. Put back the database that reached that point; or accept the loss: start rowcastd once with --accept-state-loss (or delete \(markerPath)), and every feed starts a new epoch so subscribers resync."
        )
    }

    /// The meta table and the commit count (`StoredCommitCount`) through a read-only
    /// connection: no values and 0 when the table is absent.
    private static func readMeta(_ path: String) throws -> (meta: [String: String], commits: UInt64) {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "rowcast.store.check"
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            guard try db.tableExists("meta") else { return ([:], 0) }
            let meta = Dictionary(
                try Row.fetchAll(db, sql: "SELECT key, value FROM meta").map { ($0[0] as String, $0[1] as String) },
                uniquingKeysWith: { $1 })
            return (meta, try StoredCommitCount.read(db, meta: meta))
        }
    }
}
