import Foundation
import GRDB
import Logging
import RowCastSupport

/// Copies the write-ahead log into the database file on a thread of its own, so the commit
/// thread never waits for a checkpoint, and restarts the log before it grows long.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold: that
/// commit copies the pages and syncs both files, and every item of the batch waits for it.
/// So the checkpointer, on its own connection, runs a PASSIVE checkpoint (it never blocks the
/// writer) at most every `interval` while commits arrive.
///
/// A passive checkpoint never finds the log entirely copied under steady writes (commits land
/// while it copies), and only an entirely copied log starts again from its beginning. Left
/// alone, the log grew to the store's backstop (`walBackstopPages`) within seconds of steady
/// load, and from then every commit ran a checkpoint with two syncs. So once the log holds
/// `restartFrames`, the passive checkpoint is followed by a RESTART one: it takes the write
/// lock (a commit in progress finishes first; commits wait meanwhile), copies the few frames
/// written during the passive one, syncs, and leaves the log to be reused from its start.
///
/// On a volume with little free space the checkpoints come more often and restart the log
/// sooner (`Policy`), so the log stays near the size of the data.
///
/// `@unchecked Sendable`: `pendingCommits` and `stopping` are guarded by `condition`; the
/// database connection and `policy` are used by the checkpointer thread only.
final class WALCheckpointer: @unchecked Sendable {
    /// The longest the checkpointer waits between checkpoints while commits arrive.
    static let interval = 0.1
    /// The log length (frames of a page each) from which a checkpoint also restarts the log:
    /// about 10 MB.
    static let restartFrames = 2_500
    /// The checkpointer thread's nice value.
    static let niceness: Int32 = 10
    /// Below this much free space on the database's volume the log is kept short (see
    /// `Policy.forVolume`): 64 MiB.
    static let smallVolumeBytes: UInt64 = 64 << 20

    /// How often to checkpoint, and from which log length to restart the log.
    struct Policy: Equatable {
        /// The longest wait between checkpoints while commits arrive, in seconds.
        var interval: Double
        /// The log length (frames) from which a checkpoint also restarts the log.
        var restartFrames: Int

        /// On a roomy volume: every 100 ms, restart past 2,500 frames (about 10 MB), which
        /// costs commits nothing measurable. With less than `smallVolumeBytes` free: every
        /// 10 ms, and restart once the log is as long as the database (at least 64 frames,
        /// about 256 kB), so the log stays near the size of the data instead of filling the
        /// volume (a 2 MiB volume held 1.7–2.0 MB of log for 40–250 kB of database).
        static func forVolume(freeBytes: UInt64, databasePages: Int) -> Policy {
            guard freeBytes < WALCheckpointer.smallVolumeBytes else {
                return Policy(interval: WALCheckpointer.interval, restartFrames: WALCheckpointer.restartFrames)
            }
            return Policy(interval: 0.01, restartFrames: min(WALCheckpointer.restartFrames, max(64, databasePages)))
        }
    }

    private let database: DatabaseQueue
    private let path: String
    private let logger: Logger
    private let condition = NSCondition()
    private var pendingCommits = 0
    private var stopping = false
    private var finished = false
    private var lastFailure: String?
    /// The policy in force, chosen at each checkpoint; used by the checkpointer thread only.
    private var policy = Policy(interval: WALCheckpointer.interval, restartFrames: WALCheckpointer.restartFrames)
    /// The database's directory, whose volume's free space picks the policy.
    private let directory: String
    /// Whether the thread runs at a lower priority than the loop (see `run`).
    private let lowersPriority: Bool

    /// Opens a second connection to the database at `path` and starts the thread.
    init(path: String, logger: Logger) throws {
        var configuration = Configuration()
        configuration.label = "rowcast.checkpointer"
        // Only RESTART waits (PASSIVE never does): for the commit in progress, not for long.
        // One that finds the database still busy is retried at the next checkpoint.
        configuration.busyMode = SQLiteBusyWait.mode(giveUpAfter: 0.1)
        database = try DatabaseQueue(path: path, configuration: configuration)
        self.path = path
        self.logger = logger
        directory = StateDirectory.directory(of: path)
        lowersPriority = (StateDirectory.freeBytes(in: directory) ?? .max) >= Self.smallVolumeBytes
        NamedThread.start("rowcast-checkpt") { [self] in run() }
    }

    /// Notes one commit; the thread checkpoints within `interval` after the first one it has
    /// not copied yet.
    func noteCommit() {
        condition.lock()
        pendingCommits += 1
        if pendingCommits == 1 { condition.signal() }
        condition.unlock()
    }

    /// Runs a last checkpoint, stops the thread and waits for it, then closes the connection.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
        try? database.close()
    }

    private func run() {
        // Lower priority than the loop thread: a checkpoint is never urgent, and on a small
        // machine its copying would otherwise take the core a commit is waiting for. Not on a
        // small volume (little free space when the store opened), where it is urgent: there a
        // starved checkpointer holding SQLite's checkpoint lock made the commits' own backstop
        // checkpoints find the database busy, and the log filled a 2 MiB volume on a loaded
        // 2-core machine.
        if lowersPriority {
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)  // 0: this thread (Linux)
        }
        condition.lock()
        while true {
            // Idle until a commit arrives, then at most `interval` until the checkpoint.
            if pendingCommits == 0 && !stopping { condition.wait() }
            if !stopping { _ = condition.wait(until: Date().addingTimeInterval(policy.interval)) }
            let commits = pendingCommits
            let stop = stopping
            pendingCommits = 0
            condition.unlock()
            if commits > 0 { checkpoint() }
            condition.lock()
            if stop { break }
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// One PASSIVE checkpoint: copies what it can without waiting for anyone; then, once the
    /// log is long, a RESTART one. A database found busy (a commit's own backstop checkpoint
    /// running, or a commit that outlasts the wait) is tried again next time. Another failure
    /// is logged once until a checkpoint succeeds again: the log then grows until one does,
    /// and nothing committed is lost.
    private func checkpoint() {
        do {
            let (passive, pages) = try database.writeWithoutTransaction { db in
                (try db.checkpoint(.passive), try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0)
            }
            policy = Policy.forVolume(freeBytes: StateDirectory.freeBytes(in: directory) ?? .max, databasePages: pages)
            if passive.walFrameCount >= policy.restartFrames {
                _ = try database.writeWithoutTransaction { db in try db.checkpoint(.restart) }
            }
            if lastFailure != nil {
                logger.notice("WAL checkpoints work again", metadata: ["database": "\(path)"])
                lastFailure = nil
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            return
        } catch {
            let message = "\(error)"
            if lastFailure != message {
                logger.warning(
                    "WAL checkpoint failed; the log grows until one succeeds",
                    metadata: ["database": "\(path)", "error": "\(message)"])
            }
            lastFailure = message
        }
    }
}
