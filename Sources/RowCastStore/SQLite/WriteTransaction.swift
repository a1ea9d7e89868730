import GRDB

/// The store's write transaction, begun and committed with prepared statements kept in the
/// connection's statement cache.
///
/// GRDB's `write` parses `BEGIN IMMEDIATE TRANSACTION` and `COMMIT TRANSACTION` again for
/// every transaction: a sixth of the instructions of a one-item commit, which a trickle pays
/// once per item (`rowcast-bench instructions`, the `trickle` path). The transaction is the same:
/// immediate (no lock upgrade that a busy timeout cannot wait out), rolled back on any error.
enum WriteTransaction {
    /// Runs `body` in an immediate transaction on `db` (which must be in autocommit mode) and
    /// commits it; rolls it back and rethrows when `body` or the commit throws.
    static func run(_ db: Database, _ body: () throws -> Void) throws {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            try body()
            // SQLite may have rolled back on its own after an error the body did not throw
            // (GRDB's `inTransaction` guards the same way): commit nothing of it.
            guard db.isInsideTransaction else {
                throw DatabaseError(
                    resultCode: .SQLITE_ABORT, message: "the transaction was rolled back before its commit")
            }
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            // SQLite may have rolled back already (SQLITE_FULL, SQLITE_IOERR, ...): GRDB's
            // `rollback` issues ROLLBACK only while a transaction is still open.
            try? db.rollback()
            throw error
        }
    }
}
