import GRDB
import GRDBSQLite
import RowCastEngine

/// Writes one feed's item rows with SQLite's own calls on GRDB's prepared statement (`INSERT
/// OR REPLACE INTO items(feed, id, type, section, sort, arrival, json, crc, row_cell,
/// row_json, row_crc)`), with the record's checksum (`RecordChecksum.item`) and its rendered
/// row's (`RecordChecksum.itemRow`) computed over the same buffers it binds.
///
/// It runs once per changed item in every commit. Through `Statement.execute(arguments:)`,
/// GRDB's boxing of the seven arguments and its copy of the JSON into `Data` cost more
/// instructions than SQLite's own insert; here the strings and the JSON are bound in place
/// (`SQLITE_STATIC`: they outlive the step). The feed, the same for every row, is bound once
/// (copied by SQLite), and the statement is reset before the first row and unbound after the
/// last (`finish()`), not around every row: each row rebinds parameters 2 to 11 before its step.
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
        let code: Int32 = id.withCString { idText in
            let idLength = id.utf8.count
            guard let row = item.row else {
                return write(item, idText: idText, idLength: idLength, cell: nil, rowBytes: nil)
            }
            return row.cell.withCString { cellText in
                row.bytes.withUnsafeBytes { rowBytes in
                    write(
                        item, idText: idText, idLength: idLength, cell: (cellText, row.cell.utf8.count),
                        rowBytes: rowBytes)
                }
            }
        }
        guard code == SQLITE_DONE else {
            let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    /// Binds and steps one row: the item's columns from its own buffers, the id's and the row's
    /// (`cell` and `rowBytes`, nil when the item has no row) from the caller's. Returns
    /// SQLite's result code.
    private func write(
        _ item: PersistedItem, idText: UnsafePointer<CChar>, idLength: Int,
        cell: (text: UnsafePointer<CChar>, length: Int)?, rowBytes: UnsafeRawBufferPointer?
    ) -> Int32 {
        let handle = handle
        let start = checksumStart
        return item.type.withCString { typeText in
            item.section.withCString { sectionText in
                item.json.withUnsafeBytes { json in
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
                    // `RecordChecksum.itemRow`, likewise.
                    var rowChecksum = start
                    rowChecksum.add(bytes: idText, length: idLength)
                    rowChecksum.add(cell != nil)
                    if let cell { rowChecksum.add(bytes: cell.text, length: cell.length) }
                    rowChecksum.add(rowBytes != nil)
                    if let rowBytes { rowChecksum.add(bytes: rowBytes.baseAddress, length: rowBytes.count) }
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
                    if let cell, let rowBytes {
                        sqlite3_bind_text(handle, 9, cell.text, Int32(cell.length), nil)
                        sqlite3_bind_blob(
                            handle, 10, rowBytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(rowBytes.count),
                            nil)
                    } else {
                        sqlite3_bind_null(handle, 9)
                        sqlite3_bind_null(handle, 10)
                    }
                    sqlite3_bind_int64(handle, 11, rowChecksum.stored)
                    let code = sqlite3_step(handle)
                    // Ready for the next row. Parameters 2 to 10 point at buffers gone after
                    // this closure: nothing reads them before the next row rebinds them, and
                    // `finish()` unbinds them.
                    sqlite3_reset(handle)
                    return code
                }
            }
        }
    }

    /// Resets the statement and drops its bindings, so GRDB's cache keeps no pointer into
    /// buffers that are gone.
    func finish() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}
