import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a body on a thread of its own at a given nice value, and hands back what it returned.
///
/// For tests that race a low-priority thread of the code under test: at equal priority, a
/// machine busy with other tests slows both sides alike instead of starving one of them.
///
/// `@unchecked Sendable`: `outcome` is guarded by `condition`; `body` runs on the thread only.
final class PrioritizedRun<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var outcome: Result<Value, any Error>?
    private let body: () throws -> Value

    /// Starts `body` on a new thread whose nice value is `niceness` (Linux: per thread).
    init(niceness: Int32, _ body: @escaping () throws -> Value) {
        self.body = body
        let thread = Thread { [self] in
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)  // 0: this thread
            let result = Result { try self.body() }
            condition.lock()
            outcome = result
            condition.broadcast()
            condition.unlock()
        }
        thread.start()
    }

    /// Waits at most `timeout` seconds for the body; what it returned or threw.
    func result(timeout: TimeInterval) throws -> Value {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while outcome == nil {
            guard condition.wait(until: deadline) else {
                throw PrioritizedRunTimeout(seconds: timeout)
            }
        }
        return try outcome!.get()
    }
}

/// The body of a `PrioritizedRun` did not finish in time (its thread goes on).
struct PrioritizedRunTimeout: Error, CustomStringConvertible {
    /// How long the test waited.
    let seconds: TimeInterval
    var description: String { "the prioritized run did not finish within \(seconds) s" }
}
