import GRDB
import GRDBSQLite
import RowCastEngine

/// Writes one feed's item rows with SQLite's own calls on GRDB's prepared statement (`INSERT
/// OR REPLACE INTO items(feed, id, type, section, sort, arrival, json, crc)`), with the row's
/// checksum (`RecordChecksum.item`) computed over the same buffers it binds.
///
/// It runs once per changed item in every commit. Through `Statement.execute(arguments:)`,
/// GRDB's boxing of the seven arguments and its copy of the JSON into `Data` cost more
/// instructions than SQLite's own insert; here the strings and the JSON are bound in place
/// (`SQLITE_STATIC`: they outlive the step). The feed, the same for every row, is bound once
/// (copied by SQLite), and the statement is reset before the first row and unbound after the
/// last (`finish()`), not around every row: each row rebinds parameters 2 to 8 before its step.
struct ItemRowWriter {
    /// SQLite's `SQLITE_TRANSIENT`: SQLite copies the value at once (a C macro Swift cannot import).
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    private let statement: Statement
    private let handle: OpaquePointer
    /// The checksum over the feed's name, where every row's starts.
    private let checksumStart: RecordChecksum

    /// A writer of `feed`'s rows through `statement` (prepared by GRDB from the item upsert
    /// above, which it keeps caching). Call `finish()` after the last row, also on failure.
    init(feed: String, statement: Statement) {
        self.statement = statement
        handle = statement.sqliteStatement
        checksumStart = RecordChecksum.itemStart(feed: feed)
        sqlite3_reset(handle)
        // Lengths in bytes, not up to a NUL (the decoder refuses U+0000 in ids; this does not
        // depend on it).
        _ = feed.withCString { sqlite3_bind_text(handle, 1, $0, Int32(feed.utf8.count), Self.transient) }
    }

    /// Writes `item` under `id`; throws GRDB's `DatabaseError` for SQLite's error, as GRDB would.
    func write(_ item: PersistedItem, id: String, in db: Database) throws {
        let handle = handle
        let start = checksumStart
        let code: Int32 = id.withCString { idText in
            item.type.withCString { typeText in
                item.section.withCString { sectionText in
                    item.json.withUnsafeBytes { json in
                        let idLength = id.utf8.count
                        let typeLength = item.type.utf8.count
                        let sectionLength = item.section.utf8.count
                        // `RecordChecksum.item`, over the bound buffers.
                        var checksum = start
                        checksum.add(bytes: idText, length: idLength)
                        checksum.add(bytes: typeText, length: typeLength)
                        checksum.add(bytes: sectionText, length: sectionLength)
                        checksum.add(item.sort)
                        checksum.add(item.arrival)
                        checksum.add(bytes: json.baseAddress, length: json.count)
                        sqlite3_bind_text(handle, 2, idText, Int32(idLength), nil)
                        sqlite3_bind_text(handle, 3, typeText, Int32(typeLength), nil)
                        sqlite3_bind_text(handle, 4, sectionText, Int32(sectionLength), nil)
                        if let sort = item.sort {
                            sqlite3_bind_double(handle, 5, sort)
                        } else {
                            sqlite3_bind_null(handle, 5)
                        }
                        sqlite3_bind_int64(handle, 6, Int64(item.arrival))
                        // A zero-length blob needs a non-null pointer to be a blob, not NULL.
                        sqlite3_bind_blob(
                            handle, 7, json.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(json.count), nil)
                        sqlite3_bind_int64(handle, 8, checksum.stored)
                        let code = sqlite3_step(handle)
                        // Ready for the next row. Parameters 2 to 7 point at buffers gone after
                        // this closure: nothing reads them before the next row rebinds them, and
                        // `finish()` unbinds them.
                        sqlite3_reset(handle)
                        return code
                    }
                }
            }
        }
        guard code == SQLITE_DONE else {
            let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    /// Resets the statement and drops its bindings, so GRDB's cache keeps no pointer into
    /// buffers that are gone.
    func finish() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}
