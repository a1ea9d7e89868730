import Foundation
import GRDB
import RowCastEngine

/// `rowcastd --check-state`: reads every record of a stopped rowcastd's state, read-only, and
/// reports what is damaged: SQLite's own `integrity_check` (pages, indexes,
/// the file's structure) and RowCast's checksum of every item, section, feed, answer, event
/// and logged delta (`RecordChecksum`), and whether each item's JSON parses as an item.
public enum StateCheck {
    /// What the check found.
    public struct Report: Sendable {
        /// The database checked.
        public var database: String
        /// The schema version the database is at.
        public var schema: String
        /// Records read, per table, in table order.
        public var records: [(table: String, count: Int)] = []
        /// One line per damaged record or SQLite finding.
        public var problems: [String] = []
        /// Whether the records carry checksums (schema v4 and later; older ones get them at the
        /// next start).
        public var checksummed: Bool

        /// Whether nothing is damaged.
        public var isClean: Bool { problems.isEmpty }
    }

    /// Checks the state in `directory`, holding its lock meanwhile (a running rowcastd holds it:
    /// `StoreError` of kind `locked`). Throws when there is no database there to check, or it
    /// cannot be opened as one.
    public static func run(directory: String) throws(StoreError) -> Report {
        let path = directory + "/" + SQLiteFeedStore.databaseFileName
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(
                .io, path: path,
                message:
                    "there is no state to check: \(path) does not exist. Name the state directory with --state-dir.")
        }
        let lock = try StateDirectory(readingExisting: directory)
        defer { lock.unlock() }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in try check(db, path: path) }
        } catch {
            throw SQLiteFeedStore.storeError(error, path: path, during: "checking")
        }
    }

    private static func check(_ db: Database, path: String) throws -> Report {
        let applied = try SQLiteFeedStore.migrator.appliedIdentifiers(db)
        let checksummed = applied.contains("v4")
        let newest = applied.compactMap { Int($0.dropFirst()) }.max()
        var report = Report(database: path, schema: newest.map { "v\($0)" } ?? "none", checksummed: checksummed)
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check(100)")
        if integrity != ["ok"] {
            report.problems += integrity.map { "SQLite integrity_check: \($0)" }
        }
        guard applied.contains("v1") else { return report }
        var scan = RecordScan(
            db: db, checksummed: checksummed, hasOwners: applied.contains("v6"), hasRows: applied.contains("v7"))
        try scan.feeds()
        try scan.sections()
        try scan.items()
        try scan.requests()
        if applied.contains("v3") { try scan.events() }
        if applied.contains("v5") { try scan.deltas() }
        if applied.contains("v7") { try scan.quarantine() }
        report.records = scan.counts
        report.problems += scan.problems
        return report
    }
}
