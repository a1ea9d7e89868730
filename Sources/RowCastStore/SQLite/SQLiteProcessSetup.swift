import CRowCastSQLite

/// SQLite settings for the whole process, made once, before the process opens its first
/// connection (`SQLiteFeedStore.init` asks for them before it touches the database).
///
/// Memory statistics off: with them on, every allocation and free inside SQLite takes a
/// global mutex to count bytes, several times per item a commit writes (about 3.7 allocations
/// per item row, each freed again). Nothing in rowcastd reads SQLite's memory counters
/// (`sqlite3_memory_used`, `sqlite3_status`) or sets a soft heap limit, which needs them.
///
/// The connections' own mutexes are already off: GRDB opens every connection with
/// `SQLITE_OPEN_NOMUTEX` (it serializes each connection itself), so the multi-thread mode
/// would change nothing more.
enum SQLiteProcessSetup {
    /// Why the settings could not be made (SQLite already initialized by an earlier
    /// connection in this process: a test, or a plugin using SQLite), or nil when they were.
    /// SQLite then keeps its defaults, which only cost instructions.
    static let failure: String? = {
        let code = rowcast_sqlite_disable_memory_statistics()
        return code == 0
            ? nil
            : "sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) returned \(code) (SQLite was already in use in this process)"
    }()
}
