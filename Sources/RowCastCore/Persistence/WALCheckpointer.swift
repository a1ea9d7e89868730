import Foundation
import GRDB
import Logging

/// Copies the write-ahead log into the database file on a thread of its own, so the loop
/// thread's commits never wait for a checkpoint.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses 1,000 WAL pages: that
/// commit then copies the pages and syncs both files, 3 to 4 ms on this machine, and every
/// item of the batch waits for it (it was most of the p99 publish-to-row latency). The store
/// raises the automatic checkpoint's threshold tenfold and this checkpointer, on its own
/// connection, runs a PASSIVE checkpoint (it never blocks the writer) at most every
/// `interval` while commits arrive, so the commit that reaches the threshold finds almost
/// everything copied already.
///
/// `@unchecked Sendable`: `pendingCommits` and `stopping` are guarded by `condition`; the
/// database connection is used by the checkpointer thread only.
final class WALCheckpointer: @unchecked Sendable {
    /// The longest the checkpointer waits between checkpoints while commits arrive.
    static let interval = 0.1
    /// The checkpointer thread's nice value.
    static let niceness: Int32 = 10

    private let database: DatabaseQueue
    private let path: String
    private let logger: Logger
    private let condition = NSCondition()
    private var pendingCommits = 0
    private var stopping = false
    private var finished = false
    private var lastFailure: String?

    /// Opens a second connection to the database at `path` and starts the thread.
    init(path: String, logger: Logger) throws {
        var configuration = Configuration()
        configuration.label = "rowcast.checkpointer"
        // Never blocks for a lock: a checkpoint that finds the database busy is retried later.
        configuration.busyMode = .immediateError
        database = try DatabaseQueue(path: path, configuration: configuration)
        self.path = path
        self.logger = logger
        let thread = Thread { [self] in run() }
        thread.name = "rowcast-checkpoint"
        thread.start()
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
        // machine its copying would otherwise take the core a commit is waiting for.
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)  // 0: this thread (Linux)
        condition.lock()
        while true {
            // Idle until a commit arrives, then at most `interval` until the checkpoint.
            if pendingCommits == 0 && !stopping { condition.wait() }
            if !stopping { condition.wait(until: Date().addingTimeInterval(Self.interval)) }
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

    /// One PASSIVE checkpoint: copies what it can without waiting for anyone. A failure is
    /// logged once until a checkpoint succeeds again: the log then grows until one does, and
    /// nothing committed is lost.
    private func checkpoint() {
        do {
            try database.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
            if lastFailure != nil {
                logger.notice("WAL checkpoints work again", metadata: ["database": "\(path)"])
                lastFailure = nil
            }
        } catch {
            let message = "\(error)"
            if lastFailure != message {
                logger.warning("WAL checkpoint failed; the log grows until one succeeds", metadata: ["database": "\(path)", "error": "\(message)"])
            }
            lastFailure = message
        }
    }
}
