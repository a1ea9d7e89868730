import Foundation
import GRDB
import RowCastJSON
import RowCastEngine

extension SQLiteFeedStore {
    /// Writes a commit's rows, with `commitNumber` in each feed row it writes (`last_commit`);
    /// the caller holds the transaction. Returns whether it wrote a feed row.
    static func write(_ commit: StoreCommit, commitNumber: UInt64, to db: Database) throws -> Bool {
        var wroteFeedRow = false
        for feed in commit.droppedFeeds {
            for table in ["items", "sections", "deltas", "quarantine", "feeds"] {
                let column = table == "feeds" ? "name" : "feed"
                try db.execute(sql: "DELETE FROM \(table) WHERE \(column) = ?", arguments: [feed])
            }
        }
        if !commit.feeds.isEmpty {
            try writeFeeds(commit.feeds, commitNumber: commitNumber, to: db)
            wroteFeedRow = true
        }
        if !commit.counters.isEmpty {
            let current = try db.cachedStatement(sql: "SELECT next_arrival, owner FROM feeds WHERE name = ?")
            let update = try db.cachedStatement(
                sql: "UPDATE feeds SET seq = ?, epoch = ?, crc = ?, last_commit = ? WHERE name = ?")
            for counters in commit.counters {
                guard let row = try Row.fetchOne(current, arguments: [counters.feed]) else { continue }
                let checksum = RecordChecksum.feed(
                    name: counters.feed, seq: counters.seq, epoch: counters.epoch,
                    nextArrival: UInt64(row[0] as Int64), owner: row[1])
                try update.execute(arguments: [
                    Int64(counters.seq), counters.epoch, checksum.stored, Int64(commitNumber), counters.feed,
                ])
                wroteFeedRow = true
            }
        }
        if !commit.ledger.forgotten.isEmpty {
            let forget = try db.cachedStatement(sql: "DELETE FROM requests WHERE client = ? AND req = ?")
            for key in commit.ledger.forgotten { try forget.execute(arguments: [key.client, key.req]) }
        }
        if !commit.ledger.recorded.isEmpty {
            let record = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO requests(client, req, ord, reply, crc) VALUES (?, ?, ?, ?, ?)")
            for entry in commit.ledger.recorded {
                let checksum = RecordChecksum.request(
                    client: entry.key.client, req: entry.key.req, order: entry.order, reply: entry.reply)
                try record.execute(arguments: [
                    entry.key.client, entry.key.req, Int64(entry.order), Data(entry.reply), checksum.stored,
                ])
            }
        }
        if !commit.events.isEmpty {
            let record = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO events(feed, seq, body, crc) VALUES (?, ?, ?, ?)")
            var newest: [String: UInt64] = [:]
            for event in commit.events {
                let checksum = RecordChecksum.event(feed: event.feed, seq: event.seq, body: event.body)
                try record.execute(arguments: [event.feed, Int64(event.seq), Data(event.body), checksum.stored])
                newest[event.feed] = max(newest[event.feed] ?? 0, event.seq)
            }
            let trim = try db.cachedStatement(sql: "DELETE FROM events WHERE feed = ? AND seq <= ?")
            for (feed, seq) in newest where seq > UInt64(commit.eventRetention) {
                try trim.execute(arguments: [feed, Int64(seq - UInt64(commit.eventRetention))])
            }
        }
        if !commit.history.isEmpty || commit.historyMaximumAge != nil { try writeHistory(commit, to: db) }
        if !commit.damagedItems.isEmpty {
            let mark = try db.cachedStatement(
                sql: "UPDATE items SET damage = ? WHERE feed = ? AND CAST(id AS BLOB) = ?")
            for item in commit.damagedItems {
                try mark.execute(arguments: [item.reason, item.feed, Data(item.storedID ?? Array(item.id.utf8))])
            }
        }
        if !commit.quarantine.isEmpty { try writeQuarantine(commit.quarantine, to: db) }
        if !commit.renderers.isEmpty {
            let record = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO renderers(kind, type, identity) VALUES (?, ?, ?)")
            for renderer in commit.renderers {
                try record.execute(arguments: [renderer.kind.rawValue, renderer.type, renderer.identity])
            }
        }
        return wroteFeedRow
    }

    /// Writes the quarantine's entries and deletes those of released items.
    private static func writeQuarantine(_ changes: QuarantineChanges, to db: Database) throws {
        if !changes.left.isEmpty {
            let release = try db.cachedStatement(sql: "DELETE FROM quarantine WHERE feed = ? AND id = ?")
            for key in changes.left { try release.execute(arguments: [key.feed, key.id]) }
        }
        guard !changes.entered.isEmpty else { return }
        let record = try db.cachedStatement(
            sql:
                "INSERT OR REPLACE INTO quarantine(feed, id, type, code, reason, plugin, file, at, crc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        for entry in changes.entered {
            let checksum = RecordChecksum.quarantined(
                feed: entry.feed, id: entry.id, type: entry.type, code: entry.code.rawValue, reason: entry.reason,
                plugin: entry.plugin, file: entry.file, at: entry.at)
            try record.execute(arguments: [
                entry.feed, entry.id, entry.type, entry.code.rawValue, entry.reason, entry.plugin, entry.file,
                entry.at, checksum.stored,
            ])
        }
    }

    /// How many deltas of a feed are logged between two trims of its log.
    static let historyTrimInterval: UInt64 = 32

    /// Logs the commit's deltas and trims the log: per feed to `historyRetention` deltas (at
    /// every `historyTrimInterval`th delta), and
    /// every feed's deltas logged longer ago than `historyMaximumAge`.
    private static func writeHistory(_ commit: StoreCommit, to db: Database) throws {
        let at = DeltaLogClock.now()
        if let age = commit.historyMaximumAge {
            try db.execute(sql: "DELETE FROM deltas WHERE at < ?", arguments: [DeltaLogClock.before(age, now: at)])
        }
        guard !commit.history.isEmpty else { return }
        let record = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO deltas(feed, seq, epoch, at, body, crc) VALUES (?, ?, ?, ?, ?, ?)")
        // Trimmed once every `historyTrimInterval` deltas of a feed, not with each one: the
        // log holds up to that many more than the retention, which a start leaves unused.
        var newest: [String: UInt64] = [:]
        for delta in commit.history where delta.body.count <= HistoryLimits.largestLoggedDelta {
            let checksum = RecordChecksum.delta(
                feed: delta.feed, seq: delta.seq, epoch: delta.epoch, at: at, body: delta.body)
            try record.execute(arguments: [
                delta.feed, Int64(delta.seq), delta.epoch, at, Data(delta.body), checksum.stored,
            ])
            if delta.seq % historyTrimInterval == 0 { newest[delta.feed] = max(newest[delta.feed] ?? 0, delta.seq) }
        }
        let trim = try db.cachedStatement(sql: "DELETE FROM deltas WHERE feed = ? AND seq <= ?")
        let kept = UInt64(max(commit.historyRetention, 0))
        for (feed, seq) in newest.sorted(by: { $0.key < $1.key }) where seq > kept {
            try trim.execute(arguments: [feed, Int64(seq - kept)])
        }
    }

    private static func writeFeeds(_ changes: [FeedChanges], commitNumber: UInt64, to db: Database) throws {
        let upsertFeed = try db.cachedStatement(
            sql: """
                INSERT INTO feeds(name, seq, epoch, next_arrival, owner, crc, last_commit) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(name) DO UPDATE SET seq = excluded.seq, epoch = excluded.epoch,
                    next_arrival = excluded.next_arrival, owner = excluded.owner, crc = excluded.crc,
                    last_commit = excluded.last_commit
                """)
        for change in changes {
            let checksum = RecordChecksum.feed(
                name: change.feed, seq: change.seq, epoch: change.epoch, nextArrival: change.nextArrival,
                owner: change.owner)
            try upsertFeed.execute(arguments: [
                change.feed, Int64(change.seq), change.epoch, Int64(change.nextArrival), change.owner,
                checksum.stored, Int64(commitNumber),
            ])
            if change.replacedAll {
                try db.execute(sql: "DELETE FROM items WHERE feed = ?", arguments: [change.feed])
                try db.execute(sql: "DELETE FROM sections WHERE feed = ?", arguments: [change.feed])
            }
            if !change.items.isEmpty { try writeItems(of: change, to: db) }
            if !change.sections.isEmpty { try writeSections(of: change, to: db) }
        }
    }

    /// Writes (or deletes) the touched items of `change`: the work per item of every commit.
    private static func writeItems(of change: FeedChanges, to db: Database) throws {
        let writer = ItemRowWriter(
            feed: change.feed,
            statement: try db.cachedStatement(
                sql:
                    "INSERT OR REPLACE INTO items(feed, id, type, section, sort, arrival, json, crc, row_cell, row_json, row_crc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            ))
        defer { writer.finish() }
        // Prepared only for a commit that deletes an item (GRDB's cache lookup costs too).
        var deleteItem: Statement?
        // The element is copied once per item through the tuple's runtime value witnesses
        // (a generic copy and destroy), as `for (id, item) in` did. Reading
        // `items[i].item` and `items[i].id` copied it once per access, and a pointer or a
        // second case binding the id did no better in this build; in a small test a switch
        // with one binding case and a non-inlined delete copied nothing, but not here.
        for index in change.items.indices {
            switch change.items[index] {
            case (let id, .some(let item)):
                try writer.write(item, id: id, in: db)
            case (let id, .none):
                guard !change.replacedAll else { continue }
                if deleteItem == nil {
                    deleteItem = try db.cachedStatement(sql: "DELETE FROM items WHERE feed = ? AND id = ?")
                }
                try deleteItem!.execute(arguments: [change.feed, id])
            }
        }
    }

    /// Writes (or deletes) the touched sections of `change`.
    private static func writeSections(of change: FeedChanges, to db: Database) throws {
        let upsertSection = try db.cachedStatement(
            sql:
                "INSERT OR REPLACE INTO sections(feed, id, sort_order, type, header, declared, arrival, crc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        )
        let deleteSection = try db.cachedStatement(sql: "DELETE FROM sections WHERE feed = ? AND id = ?")
        for (id, section) in change.sections {
            if let section {
                let header = section.header.map { String(decoding: JSONValue.object($0).serialized(), as: UTF8.self) }
                let checksum = RecordChecksum.section(
                    feed: change.feed, id: id, order: section.order, type: section.type, header: header,
                    declared: section.declared, arrival: section.arrival)
                try upsertSection.execute(arguments: [
                    change.feed, id, section.order, section.type, header, section.declared, Int64(section.arrival),
                    checksum.stored,
                ])
            } else if !change.replacedAll {
                try deleteSection.execute(arguments: [change.feed, id])
            }
        }
    }
}
