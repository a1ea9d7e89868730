import Foundation
import Logging
import RowCastEngine
@testable import RowCastPostgres
import RowCastTesting
import RowCastWire

/// What the cluster tests of the PostgreSQL store share: stores as nodes, commits, raw SQL,
/// and bounded waits.
enum ClusterTest {
    /// A logger that says nothing.
    static let logger = Logger(label: "rowcast.test") { _ in SwiftLogNoOpLogHandler() }

    /// The lease the stores of these tests open with (their sessions may idle that long in a
    /// transaction); the leases the tests take are their own.
    static let lease = Duration.seconds(30)

    /// A commit that writes feed `feed` with counters `seq` and one item.
    static func commit(_ feed: String, seq: UInt64, nextArrival: UInt64 = 2, owner: String? = nil) -> StoreCommit {
        var changes = FeedChanges(
            feed: feed, seq: seq, epoch: "e1", nextArrival: nextArrival, replacedAll: false,
            items: [
                (
                    id: "i",
                    item: PersistedItem(
                        id: "i", type: "product", section: "s", sort: nil, arrival: 1,
                        json: Array("{\"seq\":\(seq)}".utf8))
                )
            ], sections: [])
        changes.owner = owner
        var commit = StoreCommit()
        commit.feeds = [changes]
        return commit
    }

    /// A commit that changes only the counters of `feed`.
    static func counters(_ feed: String, seq: UInt64) -> StoreCommit {
        var commit = StoreCommit()
        commit.counters = [FeedCounters(feed: feed, seq: seq, epoch: "e1")]
        return commit
    }

    /// A connection of its own to `url`, for SQL a test runs beside the stores.
    static func connection(_ url: String) throws -> PostgresConnection {
        try PostgresConnection(parameters: [("application_name", "rowcast test"), ("dbname", url)])
    }

    /// The first column of the first row of `sql`, as text.
    static func value(_ sql: String, _ parameters: [PostgresValue] = [], url: String) throws -> String? {
        let connection = try connection(url)
        defer { connection.close() }
        return try connection.query(PostgresStatement(sql, parameters)).first { _ in true }?.text(0)
    }

    /// Waits (at most `seconds`) until `condition` holds; whether it did.
    static func waitUntil(seconds: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }

    /// How many connections to `url`'s database wait for a lock now.
    static func lockWaiters(url: String) throws -> Int {
        Int(
            try value(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
                url: url) ?? "0") ?? 0
    }
}

/// Hands a value that is not `Sendable` to one other thread, which the test joins before it
/// uses the value again.
final class Handover<Value>: @unchecked Sendable {
    // `@unchecked Sendable`: the test touches `value` from one thread at a time (it starts the
    // thread, then waits on `done` before reading `result`).
    let value: Value
    var result: Result<Void, StoreError>?
    let done = DispatchSemaphore(value: 0)

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value on a new thread; `wait` joins it.
    func start(_ body: @escaping @Sendable (Value) throws -> Void) {
        Thread.detachNewThread {
            do {
                try body(self.value)
                self.result = .success(())
            } catch let error as StoreError {
                self.result = .failure(error)
            } catch {
                self.result = .failure(StoreError(.io, path: "", message: "\(error)"))
            }
            self.done.signal()
        }
    }

    /// Waits (at most `seconds`) for the thread; its result, or nil when it did not end.
    func wait(seconds: Double = 30) -> Result<Void, StoreError>? {
        done.wait(timeout: .now() + seconds) == .success ? result : nil
    }
}

extension Handover {
    /// Whether `result` is a success (nil: the thread did not end).
    static func succeeded(_ result: Result<Void, StoreError>?) -> Bool {
        if case .success = result { return true }
        return false
    }
}

/// A value two threads share, one at a time (the test joins the other thread before reading).
final class Box<Value>: @unchecked Sendable {
    // `@unchecked Sendable`: one thread at a time, ordered by `Handover.wait`.
    var value: Value

    init(_ value: Value) { self.value = value }
}
