import GRDB

extension SQLiteFeedStore {
    /// Every schema version this build knows, oldest first. Never edit a registered
    /// migration: add a new one. A database that has a migration not listed here was written
    /// by a newer rowcastd and is refused.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (
                        key TEXT PRIMARY KEY NOT NULL,
                        value TEXT NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE feeds (
                        name TEXT PRIMARY KEY NOT NULL,
                        seq INTEGER NOT NULL,
                        epoch TEXT NOT NULL,
                        next_arrival INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE sections (
                        feed TEXT NOT NULL,
                        id TEXT NOT NULL,
                        sort_order REAL,
                        type TEXT,
                        header TEXT,
                        declared INTEGER NOT NULL,
                        arrival INTEGER NOT NULL,
                        PRIMARY KEY (feed, id)
                    ) WITHOUT ROWID;
                    CREATE TABLE items (
                        feed TEXT NOT NULL,
                        id TEXT NOT NULL,
                        type TEXT NOT NULL,
                        section TEXT NOT NULL,
                        sort REAL,
                        arrival INTEGER NOT NULL,
                        json BLOB NOT NULL,
                        PRIMARY KEY (feed, id)
                    ) WITHOUT ROWID;
                    CREATE TABLE requests (
                        client TEXT NOT NULL,
                        req TEXT NOT NULL,
                        ord INTEGER NOT NULL,
                        reply BLOB NOT NULL,
                        PRIMARY KEY (client, req)
                    ) WITHOUT ROWID;
                    CREATE TABLE renderers (
                        kind TEXT NOT NULL,
                        type TEXT NOT NULL,
                        identity TEXT,
                        PRIMARY KEY (kind, type)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2") { db in
            // v1 keyed remembered answers by `req` as RowCast re-encoded it: integers from 2^53
            // on and every non-integer number were written as a Double prints
            // (123456789012345678 became 1.2345678901234568e+17). From v2 on the key is the
            // text the client sent. Integers below 2^53 and strings were stored as sent, and
            // stay; the lossy keys can match no request any more (their exact text is lost,
            // and non-integer ids are refused now), so their answers are forgotten.
            try db.execute(
                sql: """
                    DELETE FROM requests
                    WHERE substr(req, 1, 1) <> '"'
                      AND (instr(req, '.') > 0 OR instr(req, 'e') > 0 OR instr(req, 'E') > 0);
                    """)
        }
        migrator.registerMigration("v3") { db in
            // Action events, kept per feed for producers that pull them (`events`).
            try db.execute(
                sql: """
                    CREATE TABLE events (
                        feed TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        body BLOB NOT NULL,
                        PRIMARY KEY (feed, seq)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v4") { db in
            // A CRC32C on every item, section, feed, answer and event row (`RecordChecksum`),
            // and the mark a start leaves on an item row found damaged (`damage`, the reason).
            try db.execute(
                sql: """
                    ALTER TABLE items ADD COLUMN crc INTEGER;
                    ALTER TABLE items ADD COLUMN damage TEXT;
                    ALTER TABLE sections ADD COLUMN crc INTEGER;
                    ALTER TABLE feeds ADD COLUMN crc INTEGER;
                    ALTER TABLE requests ADD COLUMN crc INTEGER;
                    ALTER TABLE events ADD COLUMN crc INTEGER;
                    """)
            try addChecksumsToExistingRows(db)
        }
        migrator.registerMigration("v5") { db in
            // The delta log: the last published deltas of each feed, so that `since` is
            // answered from history after a restart (`at`: unix milliseconds when logged; no
            // index on it: every commit writes the log, and only a start trims it by age).
            try db.execute(
                sql: """
                    CREATE TABLE deltas (
                        feed TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        epoch TEXT NOT NULL,
                        at INTEGER NOT NULL,
                        body BLOB NOT NULL,
                        crc INTEGER NOT NULL,
                        PRIMARY KEY (feed, seq)
                    );
                    """)
        }
        migrator.registerMigration("v6") { db in
            // The client (CURVE key name) whose request created the feed: its quota's count.
            try db.execute(sql: "ALTER TABLE feeds ADD COLUMN owner TEXT")
        }
        migrator.registerMigration("v7") { db in
            // Rows as rendered, so that a start calls no plugin for an item whose type's
            // renderer did not change (`renderers`): the row's cell and JSON (both NULL when the
            // item has no row) and their checksum (`RecordChecksum.itemRow`; NULL: a record
            // written before v7, whose row was not stored and is rendered at the next start).
            // And the quarantine: items a plugin crashed or hung on, never rendered at a start
            // or a reload.
            try db.execute(
                sql: """
                    ALTER TABLE items ADD COLUMN row_cell TEXT;
                    ALTER TABLE items ADD COLUMN row_json BLOB;
                    ALTER TABLE items ADD COLUMN row_crc INTEGER;
                    CREATE TABLE quarantine (
                        feed TEXT NOT NULL,
                        id TEXT NOT NULL,
                        type TEXT NOT NULL,
                        code TEXT NOT NULL,
                        reason TEXT NOT NULL,
                        plugin TEXT NOT NULL,
                        file TEXT NOT NULL,
                        at INTEGER NOT NULL,
                        crc INTEGER NOT NULL,
                        PRIMARY KEY (feed, id)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v8") { db in
            // One page of log fewer per commit: the commit count is carried by the feed rows
            // that commits write anyway (`last_commit`, the number of the last commit that wrote
            // the row; NULL until one does). `meta`'s `commits` is rewritten only by commits
            // that write no feed row or drop a feed, and the store's count is the larger of the
            // two (`StoredCommitCount`).
            try db.execute(sql: "ALTER TABLE feeds ADD COLUMN last_commit INTEGER")
        }
        return migrator
    }

    /// The newest schema version this build writes.
    static var schemaVersion: String { "v8" }
}
