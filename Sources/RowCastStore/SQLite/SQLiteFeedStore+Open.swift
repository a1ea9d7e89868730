import Foundation
import GRDB
import RowCastEngine

extension SQLiteFeedStore {
    /// What the meta table said when opening.
    struct OpenedMeta {
        var storeID: String
        var commits: UInt64
        var continuity: StoreContinuity
    }

    /// The WAL length (pages) at which a commit checkpoints by itself. `WALCheckpointer` keeps
    /// the log far shorter (it restarts it past `WALCheckpointer.restartFrames`); this only
    /// bounds the log, at about 40 MB, if the checkpointer cannot run.
    static let walBackstopPages = 10_000

    /// The same bound on a volume with less than `WALCheckpointer.smallVolumeBytes` free when
    /// the store opens: about 512 kB. There the checkpointer restarts the log once it is as
    /// long as the data, but it runs at a low priority, and on a busy machine it was starved
    /// long enough for the log to fill a 2 MiB volume (commits then fail with a full disk). A
    /// commit that finds the log this long copies it itself, before the volume fills.
    static let smallVolumeWALBackstopPages = 128

    /// The backstop for a store whose directory has `freeBytes` free.
    static func walBackstopPages(freeBytes: UInt64) -> Int {
        freeBytes < WALCheckpointer.smallVolumeBytes ? smallVolumeWALBackstopPages : walBackstopPages
    }

    /// Opens the database in WAL mode with the `synchronous` setting, checks it (integrity,
    /// ownership, schema version) and migrates it to this build's schema.
    static func openDatabase(at path: String, synchronous: Synchronous) throws(StoreError) -> DatabaseQueue {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            throw StoreError(
                .foreign, path: path,
                message: "\(path) is not a regular file. Move it aside (or choose another --state-dir) and start again."
            )
        }
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.label = "rowcast.store"
        // The checkpointer's RESTART holds the write lock for a moment; a commit waits it out.
        // Ten seconds means something else holds the database: the commit then fails.
        configuration.busyMode = SQLiteBusyWait.mode(giveUpAfter: 10)
        let pragma = synchronous == .full ? "FULL" : "NORMAL"
        let backstop = walBackstopPages(
            freeBytes: StateDirectory.freeBytes(in: StateDirectory.directory(of: path)) ?? .max)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(pragma)")
            // Checkpoints run on their own thread (`WALCheckpointer`); the automatic one is a
            // backstop only.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(backstop)")
        }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw storeError(error, path: path, during: "opening")
        }
        do {
            let migrator = Self.migrator
            try queue.read { db in
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard check == ["ok"] else {
                    throw corruption(path: path, detail: check.prefix(3).joined(separator: "; "))
                }
                let tables = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                if !tables.isEmpty && !tables.contains("grdb_migrations") {
                    throw StoreError(
                        .foreign, path: path,
                        message:
                            "\(path) is an SQLite database of another program (tables: \(tables.prefix(5).joined(separator: ", "))), not a rowcastd state. rowcastd leaves it alone: choose another --state-dir, or move the file aside."
                    )
                }
                if try migrator.hasBeenSuperseded(db) {
                    let applied = try migrator.appliedIdentifiers(db).sorted().joined(separator: ", ")
                    throw StoreError(
                        .newerSchema, path: path,
                        message:
                            "\(path) was written by a newer rowcastd (schema versions \(applied); this build knows up to \(schemaVersion)). Run that newer rowcastd, or move the file aside (its data is then not served) to start this one with an empty state."
                    )
                }
            }
            try migrator.migrate(queue)
        } catch let error as StoreError {
            try? queue.close()
            throw error
        } catch {
            try? queue.close()
            throw storeError(error, path: path, during: "checking")
        }
        return queue
    }

    /// Reads the meta table and judges whether the stored history continues.
    static func readMeta(_ queue: DatabaseQueue, path: String, marker: CommitMarker) throws -> OpenedMeta {
        let (meta, commits) = try queue.read { db in
            let meta = Dictionary(
                try Row.fetchAll(db, sql: "SELECT key, value FROM meta").map { ($0[0] as String, $0[1] as String) },
                uniquingKeysWith: { $1 })
            return (meta, try StoredCommitCount.read(db, meta: meta))
        }
        guard let storeID = meta["store_id"] else {
            return OpenedMeta(storeID: UUID().uuidString.lowercased(), commits: 0, continuity: .fresh)
        }
        var reasons: [String] = []
        let markerPath = marker.path
        if let position = marker.read() {
            if position.storeID != storeID {
                reasons.append(
                    "\(markerPath) belongs to another database (store \(position.storeID), this one is \(storeID))")
            } else if position.commits > commits {
                reasons.append(
                    "the database has \(commits) commits but had reached \(position.commits) (\(markerPath)): it is an older copy, or commits were lost"
                )
            }
        } else {
            reasons.append("\(markerPath) is missing or unreadable, so the database cannot be shown to be the latest")
        }
        if let reason = rebootAfterUncleanStop(meta: meta) { reasons.append(reason) }
        return OpenedMeta(
            storeID: storeID, commits: commits,
            continuity: reasons.isEmpty ? .continued : .broken(reason: reasons.joined(separator: "; ")))
    }

    /// Why the last commits may be lost to the operating system, when the meta table shows an
    /// unclean stop at durability normal and the machine has restarted since (or may have);
    /// nil otherwise.
    static func rebootAfterUncleanStop(meta: [String: String]) -> String? {
        guard meta["clean"] != "1", meta["durability"] != Synchronous.full.rawValue else { return nil }
        let current = BootIdentity.current()
        if let recorded = BootIdentity(meta: meta) {
            guard !current.sameBoot(as: recorded) else { return nil }
            return
                "the machine restarted since rowcastd last stopped without a clean shutdown, with durability normal, so its last commits may be lost (\(current.describe(against: recorded)))"
        }
        guard current.bootID == nil || current.bootID != meta["boot_id"] else { return nil }
        return
            "the machine may have restarted since rowcastd last stopped without a clean shutdown, with durability normal (no boot time recorded, and the boot id \(current.bootID == nil ? "cannot be read" : "changed")), so its last commits may be lost"
    }

    /// Writes meta values in a transaction synced to disk whatever the durability setting.
    static func writeMetaDurably(_ queue: DatabaseQueue, _ values: [String: String], synchronous: Synchronous) throws {
        try queue.inDatabase { db in
            if synchronous != .full { try db.execute(sql: "PRAGMA synchronous = FULL") }
            defer { if synchronous != .full { try? db.execute(sql: "PRAGMA synchronous = NORMAL") } }
            try db.inTransaction {
                for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                    try db.execute(
                        sql:
                            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        arguments: [key, value])
                }
                return .commit
            }
        }
    }
}
