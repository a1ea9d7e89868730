import GRDB
import GRDBSQLite

/// Writes one item row with SQLite's own calls on GRDB's prepared statement (`INSERT OR
/// REPLACE INTO items(feed, id, type, section, sort, arrival, json)`).
///
/// It runs once per changed item in every commit. Through `Statement.execute(arguments:)`,
/// GRDB's boxing of the seven arguments and its copy of the JSON into `Data` cost more
/// instructions than SQLite's own insert; here the strings and the JSON are bound in place
/// (`SQLITE_STATIC`: they outlive the step) and the statement is reset after it.
enum ItemRowWriter {
    /// Runs `statement` (prepared by GRDB from the item upsert above, which it keeps caching)
    /// for `item` of `feed`; throws GRDB's `DatabaseError` for SQLite's error, as GRDB would.
    static func write(_ item: PersistedItem, id: String, feed: String, with statement: Statement, in db: Database) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        let code: Int32 = feed.withCString { feedText in
            id.withCString { idText in
                item.type.withCString { typeText in
                    item.section.withCString { sectionText in
                        item.json.withUnsafeBytes { json in
                            // Lengths in bytes, not up to a NUL: an id may contain U+0000.
                            sqlite3_bind_text(handle, 1, feedText, Int32(feed.utf8.count), nil)
                            sqlite3_bind_text(handle, 2, idText, Int32(id.utf8.count), nil)
                            sqlite3_bind_text(handle, 3, typeText, Int32(item.type.utf8.count), nil)
                            sqlite3_bind_text(handle, 4, sectionText, Int32(item.section.utf8.count), nil)
                            if let sort = item.sort { sqlite3_bind_double(handle, 5, sort) } else { sqlite3_bind_null(handle, 5) }
                            sqlite3_bind_int64(handle, 6, Int64(item.arrival))
                            // A zero-length blob needs a non-null pointer to be a blob, not NULL.
                            sqlite3_bind_blob(handle, 7, json.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(json.count), nil)
                            let code = sqlite3_step(handle)
                            // Unbound before the buffers go away, and ready for the next use.
                            sqlite3_reset(handle)
                            sqlite3_clear_bindings(handle)
                            return code
                        }
                    }
                }
            }
        }
        guard code == SQLITE_DONE else {
            let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }
}
