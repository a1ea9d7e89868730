import Foundation
import GRDB
import Logging
import RowCastEngine
import RowCastWire

/// The durable store: one SQLite database (`rowcast.db`) in the state directory, through
/// GRDB, in WAL mode. Every batch is one transaction; `synchronous` decides whether a commit
/// waits for the disk (see docs/OPERATIONS.md, "Durability").
///
/// Opening refuses, with a `StoreError` naming the file and what to do, a directory it
/// cannot write, a damaged file, an SQLite file of another program, and a database written by
/// a newer rowcastd. It never deletes or rewrites a file it refuses.
///
/// Not `Sendable`: the daemon's loop thread owns it (GRDB's queue is thread-safe, but the
/// commit counter and marker are not).
public final class SQLiteFeedStore: FeedStore {
    /// SQLite's `synchronous` setting for commits.
    public enum Synchronous: String, Sendable, CaseIterable {
        /// WAL with `synchronous=NORMAL`: a commit survives a crash of the process; power loss
        /// may undo the last commits.
        case normal
        /// WAL with `synchronous=FULL`: the WAL is synced before a commit returns, so it also
        /// survives power loss.
        case full
    }

    /// The database file's name in the state directory.
    public static let databaseFileName = "rowcast.db"
    /// The commit marker's file name in the state directory.
    public static let markerFileName = "rowcast.position"

    /// The state directory.
    public let directory: String
    /// The database file.
    public let databasePath: String
    /// The `synchronous` setting in force.
    public let synchronous: Synchronous
    /// Whether the stored feeds continue what subscribers saw, as judged when opening.
    public let continuity: StoreContinuity

    private let stateDirectory: StateDirectory
    private var queue: DatabaseQueue?
    private var checkpointer: WALCheckpointer?
    private let marker: CommitMarker
    private let storeID: String
    private var commits: UInt64
    private var committedThisRun = false
    private let logger: Logger
    /// Why `close()` could not record a clean stop, or nil.
    public private(set) var closeFailure: StoreError?
    /// How much of the delta log `load` and `feeds(named:)` read back.
    private var historyLimits = HistoryLimits.standard

    /// Opens (creating when absent) the store in `directory`, migrating its schema, and records
    /// this start (boot id, durability) durably.
    ///
    /// When `rowcast.position` shows history the database no longer holds (see
    /// `StateLossCheck`), throws a `StoreError` of kind `lost` and leaves every file as it was,
    /// unless `acceptStateLoss`: then it logs the loss as an error and opens the store with
    /// broken continuity (every feed starts a new epoch).
    public init(
        directory: String, synchronous: Synchronous, acceptStateLoss: Bool = false,
        logger: Logger = Logger(label: "rowcast.store")
    ) throws(StoreError) {
        self.directory = directory
        self.synchronous = synchronous
        self.logger = logger
        // Before any SQLite use in the process (StateLossCheck below opens the database).
        if let failure = SQLiteProcessSetup.failure {
            logger.notice(
                "SQLite memory statistics stay on; commits take a few more instructions",
                metadata: ["reason": "\(failure)"])
        }
        stateDirectory = try StateDirectory(path: directory)
        for change in try StateFileModes.restrict(directory: directory) {
            logger.notice("state made private to rowcastd's user", metadata: ["change": "\(change)"])
        }
        databasePath = directory + "/" + Self.databaseFileName
        marker = CommitMarker(path: directory + "/" + Self.markerFileName)
        let lost = StateLossCheck(databasePath: databasePath, marker: marker).missingHistory()
        if let lost {
            guard acceptStateLoss else {
                throw StateLossCheck.refusal(lost, databasePath: databasePath, markerPath: marker.path)
            }
            logger.error(
                "state loss accepted (--accept-state-loss): every feed starts a new epoch",
                metadata: ["lost": "\(lost)"])
        }
        try StateFileModes.createPrivately(databasePath)
        let queue = try Self.openDatabase(at: databasePath, synchronous: synchronous)
        self.queue = queue
        let path = databasePath
        do {
            let opened = try Self.readMeta(queue, path: path, marker: marker)
            storeID = opened.storeID
            commits = opened.commits
            continuity = opened.continuity
            // The commit count and the marker move with the first commit only, so a start that
            // found broken continuity and stopped before committing new epochs finds it again.
            let started: [String: String] = [
                "store_id": storeID, "durability": synchronous.rawValue, "clean": "0", "schema": Self.schemaVersion,
            ].merging(BootIdentity.current().meta) { $1 }
            try Self.writeMetaDurably(queue, started, synchronous: synchronous)
            checkpointer = try WALCheckpointer(path: path, logger: logger)
        } catch let error as StoreError {
            try? queue.close()
            throw error
        } catch {
            try? queue.close()
            throw Self.storeError(error, path: path, during: "recording the start in")
        }
        logger.info(
            "state opened",
            metadata: [
                "database": "\(databasePath)", "durability": "\(synchronous.rawValue)", "commits": "\(commits)",
                "continuity": "\(continuity)",
            ])
    }

    // MARK: - FeedStore

    /// Everything stored, with the continuity judged when opening.
    public func load() throws(StoreError) -> StoredState {
        let queue = try openQueue()
        let path = databasePath
        let history = historyLimits
        do {
            return try queue.read { db in
                var state = StoredState(
                    feeds: try Self.readFeeds(db, names: nil, history: history, path: path, logger: logger),
                    ledger: try Self.readLedger(db, path: path),
                    renderers: try Self.readRenderers(db),
                    continuity: continuity,
                    events: try Self.readEvents(db, path: path))
                state.quarantine = try Self.readQuarantine(db, path: path)
                return state
            }
        } catch {
            throw Self.storeError(error, path: databasePath, during: "reading")
        }
    }

    /// Writes consecutive batches in one transaction (an empty one still counts a commit),
    /// then moves the commit marker (synced after the first commit of a run).
    public func commit(_ batches: [StoreCommit]) throws(StoreError) {
        let queue = try openQueue()
        let next = commits + 1
        do {
            try queue.writeWithoutTransaction { db in
                try WriteTransaction.run(db) {
                    var wroteFeedRow = false
                    for batch in batches {
                        wroteFeedRow = try Self.write(batch, commitNumber: next, to: db) || wroteFeedRow
                    }
                    // The feed rows carry the count (`StoredCommitCount`), unless none was
                    // written or a dropped feed's row held the highest number.
                    if !wroteFeedRow || batches.contains(where: { !$0.droppedFeeds.isEmpty }) {
                        try db.cachedStatement(
                            sql:
                                "INSERT INTO meta(key, value) VALUES ('commits', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
                        )
                        .execute(arguments: [String(next)])
                    }
                }
            }
        } catch {
            throw Self.storeError(error, path: databasePath, during: "committing to")
        }
        commits = next
        checkpointer?.noteCommit()
        let position = CommitMarker.Position(storeID: storeID, commits: next)
        let written = committedThisRun ? marker.write(position) : marker.writeAndSync(position)
        committedThisRun = true
        if !written {
            logger.warning(
                "cannot update the commit marker",
                metadata: ["file": "\(marker.path)", "error": "\(StateDirectory.describe(errno))"])
        }
    }

    /// The named feeds as committed.
    public func feeds(named names: [String]) throws(StoreError) -> [RestoredFeed] {
        let queue = try openQueue()
        do {
            let path = databasePath
            let history = historyLimits
            return try queue.read { db in
                try Self.readFeeds(db, names: Set(names), history: history, path: path, logger: logger)
            }
        } catch {
            throw Self.storeError(error, path: databasePath, during: "reading")
        }
    }

    /// The feeds of `partitions` as committed: the names are read first, and the feeds whose
    /// name hashes into one of them are read whole.
    public func feeds(inPartitions partitions: Set<Partition>) throws(StoreError) -> [RestoredFeed] {
        let queue = try openQueue()
        let path = databasePath
        let history = historyLimits
        do {
            return try queue.read { db in
                let names = try String.fetchAll(db, sql: "SELECT name FROM feeds").filter {
                    partitions.contains(Partition(feed: $0))
                }
                return try Self.readFeeds(db, names: Set(names), history: history, path: path, logger: logger)
            }
        } catch {
            throw Self.storeError(error, path: databasePath, during: "reading")
        }
    }

    /// The remembered answers as committed.
    public func ledgerEntries() throws(StoreError) -> [LedgerEntry] {
        let queue = try openQueue()
        do {
            let path = databasePath
            return try queue.read { db in try Self.readLedger(db, path: path) }
        } catch {
            throw Self.storeError(error, path: databasePath, during: "reading")
        }
    }

    /// The quarantined items as committed, oldest first.
    public func quarantinedItems() throws(StoreError) -> [QuarantinedItem] {
        let queue = try openQueue()
        do {
            let path = databasePath
            return try queue.read { db in try Self.readQuarantine(db, path: path) }
        } catch {
            throw Self.storeError(error, path: databasePath, during: "reading")
        }
    }

    /// Stops the checkpointer, records a clean stop (synced), closes the database (which
    /// checkpoints the WAL into it) and releases the state directory. When the clean stop
    /// cannot be recorded (a full disk), `closeFailure` says why; everything committed is
    /// still in the write-ahead log.
    public func close() {
        guard let queue else { return }
        checkpointer?.stop()
        checkpointer = nil
        do {
            // The count too, which commits leave in the feed rows (`StoredCommitCount`): an
            // older rowcastd reads only meta, and must reach its newer-schema refusal, not a
            // lost-state one.
            try Self.writeMetaDurably(queue, ["clean": "1", "commits": String(commits)], synchronous: synchronous)
            try queue.close()
            if committedThisRun { marker.writeAndSync(CommitMarker.Position(storeID: storeID, commits: commits)) }
        } catch {
            logger.error(
                "could not close the state cleanly; the next start may begin new epochs",
                metadata: ["database": "\(databasePath)", "error": "\(error)"])
            var failure = Self.storeError(error, path: databasePath, during: "recording a clean stop in")
            failure.message +=
                " Nothing acknowledged is lost: the write-ahead log holds it, and the next start continues from it."
            closeFailure = failure
        }
        self.queue = nil
        marker.close()
        stateDirectory.unlock()
    }

    /// Reads back at most `limits` of the delta log from now on.
    public func keepHistory(within limits: HistoryLimits) {
        historyLimits = limits
    }

    /// The disk has too little room while it has less than 1 MiB free, the least a start needs
    /// (`StateDirectory.minimumFreeBytes`).
    public func spaceShortage() -> StoreError? {
        guard let free = StateDirectory.freeBytes(in: directory), free < StateDirectory.minimumFreeBytes else {
            return nil
        }
        return StoreError(
            .full, path: databasePath,
            message:
                "the disk holding \(directory) is full: \(free / 1024) KiB free there, and rowcastd writes again once it has \(StateDirectory.minimumFreeBytes >> 20) MiB. Free disk space there (or raise the file size limit)."
        )
    }

    deinit {
        checkpointer?.stop()
        if let queue { try? queue.close() }
    }

    private func openQueue() throws(StoreError) -> DatabaseQueue {
        guard let queue else {
            throw StoreError(.io, path: databasePath, message: "the store \(databasePath) is closed")
        }
        return queue
    }
}

@available(*, unavailable)
extension SQLiteFeedStore: Sendable {}
