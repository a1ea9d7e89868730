import Foundation
import GRDB

/// How the store's two connections wait for each other's locks: by retrying every 50 µs.
///
/// SQLite's own busy timeout sleeps 1 ms, then 2, then 5 and more between tries; a commit that
/// found the checkpointer's RESTART holding the write lock for less than a millisecond would
/// sleep a whole millisecond or more. Short, even pauses keep that wait close to the hold.
enum SQLiteBusyWait {
    /// The pause between tries.
    static let pauseMicroseconds: UInt32 = 50

    /// A busy handler that gives up (SQLITE_BUSY) after about `seconds`.
    static func mode(giveUpAfter seconds: Double) -> Database.BusyMode {
        let tries = Int(seconds * 1_000_000 / Double(pauseMicroseconds))
        return .callback { numberOfTries in
            guard numberOfTries < tries else { return false }
            usleep(pauseMicroseconds)
            return true
        }
    }
}
