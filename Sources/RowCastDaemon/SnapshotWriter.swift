import Dispatch
import RowCastEngine
import RowCastJSON
import RowCastSupport

/// Writes snapshot replies on a thread of its own, so that a snapshot of a big feed costs the
/// loop thread only the taking of the feed's view (O(sections)), not the writing of its rows
/// (O(rows)). The loop hands each job over with its caller's reply route and sends the finished
/// replies on a later pass: ZeroMQ sockets stay on the loop thread.
final class SnapshotWriter: Sendable {
    /// Replies written and not yet taken, with the route each must be sent on.
    private let finished = LockedValue<(replies: [(ReplyRoute, [[UInt8]])], inFlight: Int)>(([], 0))
    private let queue = DispatchQueue(label: "rowcast.snapshots")
    /// Signalled each time a job is written.
    private let written = DispatchSemaphore(value: 0)

    /// Starts writing the replies of `job`, to be sent on `route` to its caller.
    func submit(_ job: SnapshotJob, route: ReplyRoute) {
        finished.withLock { $0.inFlight += 1 }
        queue.async { [finished, written] in
            let replies = job.replies()
            finished.withLock { state in
                state.replies.append((route, replies))
                state.inFlight -= 1
            }
            written.signal()
        }
    }

    /// How many jobs are submitted and not yet written.
    var inFlight: Int { finished.withLock { $0.inFlight } }

    /// Waits at most `timeout` for a job to be written (at once if one was since the last wait).
    func waitForProgress(timeout: DispatchTimeInterval) {
        _ = written.wait(timeout: .now() + timeout)
    }

    /// Whether replies are being written or wait to be taken.
    var isBusy: Bool { finished.withLock { $0.inFlight > 0 || !$0.replies.isEmpty } }

    /// The replies written so far, oldest first; forgets them.
    func takeFinished() -> [(ReplyRoute, [[UInt8]])] {
        finished.withLock { state in
            defer { state.replies.removeAll() }
            return state.replies
        }
    }

    /// Waits until every job submitted so far is written.
    func waitUntilWritten() {
        queue.sync {}
    }
}
