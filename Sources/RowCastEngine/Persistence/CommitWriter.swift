import CRowCastHost
import Foundation

import RowCastSupport

#if canImport(Glibc)
import Glibc
#endif

/// Writes commits to the store on a thread of its own, one job at a time, so the loop thread
/// applies the next batches while the previous ones are written (see `DurableEngine.submit`);
/// or, when the owner would only wait for it, on the owner's own thread (`writeHere`).
///
/// The store is used by this thread only while a job runs; the owner touches it (to read it
/// back, reload or close) only while no job runs, after `wait()` returned.
///
/// `@unchecked Sendable`: `job`, `outcome` and `stopping` are guarded by `condition`; the store
/// is handed between the owner and the thread through the job, never used by both at once.
final class CommitWriter: @unchecked Sendable {
    private let store: any FeedStore
    private let condition = NSCondition()
    private var job: [StoreCommit]?
    private var outcome: Result<Void, StoreError>?
    private var duration: Duration = .zero
    private var stopping = false
    private var running = false

    /// Readable from when a job's outcome is ready until it is taken (`wait()` or
    /// `takeIfSucceeded()`), so the loop can watch for it beside other descriptors.
    let finishedDescriptor: Int32

    /// A writer for `store`; its thread starts with `startThread` or the first job.
    init(store: any FeedStore) {
        self.store = store
        finishedDescriptor = rowcast_eventfd()
    }

    /// Whether a job was started and its outcome not yet taken by `wait()`.
    private(set) var isBusy = false
    /// How long the store took to write the job `wait()` returned last (on the writer thread).
    private(set) var lastDuration: Duration = .zero

    /// Starts writing `commits` in one transaction, in order. Only when not busy.
    func start(_ commits: [StoreCommit]) {
        precondition(!isBusy, "CommitWriter.start while a commit is being written")
        isBusy = true
        condition.lock()
        startThreadLocked()
        job = commits
        condition.unlock()
        // Woken after the unlock, the commit thread finds the lock free (woken under it, it
        // would run only to block on the lock and be woken a second time).
        condition.broadcast()
    }

    /// Starts the thread if it is not running yet (`start` does too); it waits for a job.
    func startThread() {
        condition.lock()
        startThreadLocked()
        condition.unlock()
    }

    /// Starts the thread if it is not running yet, with `condition` held.
    private func startThreadLocked() {
        guard !running else { return }
        running = true
        NamedThread.start("rowcast-commit") { [self] in run() }
    }

    /// Writes `commits` in one transaction on the calling thread and returns how it went, as
    /// `start` then `wait()` would, without the two hand-offs between the threads. Only when not
    /// busy (the store is the caller's while no job runs).
    func writeHere(_ commits: [StoreCommit]) -> Result<Void, StoreError> {
        precondition(!isBusy, "CommitWriter.writeHere while a commit is being written")
        let started = ContinuousClock.now
        let result: Result<Void, StoreError>
        do {
            try store.commit(commits)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        lastDuration = ContinuousClock.now - started
        return result
    }

    /// Waits for the job started last and returns how it went.
    func wait() -> Result<Void, StoreError> {
        precondition(isBusy, "CommitWriter.wait with no commit being written")
        condition.lock()
        if finishedDescriptor >= 0 {
            // The outcome comes with a write to the descriptor (under the lock), which stays
            // readable until it is taken: sleeping in `poll` misses no outcome, and the writer
            // thread need not wake anyone through the condition.
            var entry = pollfd(fd: finishedDescriptor, events: Int16(POLLIN), revents: 0)
            while outcome == nil {
                condition.unlock()
                _ = poll(&entry, 1, -1)  // EINTR: look again
                condition.lock()
            }
        } else {
            while outcome == nil { condition.wait() }
        }
        let result = outcome!
        outcome = nil
        lastDuration = duration
        clearFinished()
        condition.unlock()
        isBusy = false
        return result
    }

    /// Takes the outcome of the job started last if it is ready and succeeded, without
    /// waiting: true then (the writer is no longer busy). False when it is still running, or
    /// failed (the failure is left for `wait()`). Either way `finishedDescriptor` is no longer
    /// readable until the next outcome.
    func takeIfSucceeded() -> Bool {
        guard isBusy else { return false }
        condition.lock()
        clearFinished()
        guard case .success = outcome else {
            condition.unlock()
            return false
        }
        outcome = nil
        lastDuration = duration
        condition.unlock()
        isBusy = false
        return true
    }

    /// Whether the job started last has finished (its outcome is ready for `wait()`, which
    /// then returns at once); false when no job is running.
    var hasFinished: Bool {
        guard isBusy else { return false }
        condition.lock()
        defer { condition.unlock() }
        return outcome != nil
    }

    /// Makes `finishedDescriptor` unreadable (with `condition` held).
    private func clearFinished() {
        var count: UInt64 = 0
        _ = read(finishedDescriptor, &count, 8)
    }

    /// Ends the thread (after the job in hand, whose outcome is then dropped) and waits for it.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            while job == nil && !stopping { condition.wait() }
            guard let commits = job else { break }
            job = nil
            condition.unlock()
            let result: Result<Void, StoreError>
            let started = ContinuousClock.now
            do {
                try store.commit(commits)
                result = .success(())
            } catch {
                result = .failure(error)
            }
            let took = ContinuousClock.now - started
            condition.lock()
            outcome = result
            duration = took
            if finishedDescriptor >= 0 {
                var one: UInt64 = 1
                _ = write(finishedDescriptor, &one, 8)  // wakes `wait()` as well
            } else {
                condition.broadcast()
            }
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }

    deinit {
        stop()
        close(finishedDescriptor)
    }
}
