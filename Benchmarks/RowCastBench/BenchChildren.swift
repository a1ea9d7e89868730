import Foundation

/// The processes the bench started and has not stopped yet (rowcastd, a daemon under
/// valgrind), so that a bench stopped by Ctrl-C, SIGTERM or SIGHUP stops them too instead of
/// leaving a rowcastd running on its ports and temporary state.
///
/// The signal handler only reads a fixed table of process ids and calls `kill`, which is safe
/// in a handler; then it lets the signal end the bench as it would have.
enum BenchChildren {
    /// Room for this many live children at once (the bench runs one or two).
    private static let capacity = 16
    /// The table: a pid, or 0 for a free slot.
    nonisolated(unsafe) private static let table: UnsafeMutablePointer<pid_t> = {
        let table = UnsafeMutablePointer<pid_t>.allocate(capacity: capacity)
        table.initialize(repeating: 0, count: capacity)
        return table
    }()
    nonisolated(unsafe) private static var installed = false

    /// Records a child started; installs the handlers the first time.
    static func add(_ pid: pid_t) {
        installHandlers()
        for slot in 0..<capacity where table[slot] == 0 {
            table[slot] = pid
            return
        }
    }

    /// Forgets a child that was stopped (or never started).
    static func remove(_ pid: pid_t) {
        for slot in 0..<capacity where table[slot] == pid { table[slot] = 0 }
    }

    private static func installHandlers() {
        guard !installed else { return }
        installed = true
        _ = table
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { received in
                for slot in 0..<BenchChildren.capacity where BenchChildren.table[slot] != 0 {
                    kill(BenchChildren.table[slot], SIGTERM)
                }
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }
}
