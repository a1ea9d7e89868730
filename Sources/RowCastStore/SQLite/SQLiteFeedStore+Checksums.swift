import Foundation
import GRDB
import RowCastEngine

extension SQLiteFeedStore {
    /// Gives every row written before checksums existed (schema v3 and older) its checksum,
    /// in the migration's transaction.
    static func addChecksumsToExistingRows(_ db: Database) throws {
        let items = try Row.fetchCursor(db, sql: "SELECT feed, id, type, section, sort, arrival, json FROM items")
        let updateItem = try db.makeStatement(sql: "UPDATE items SET crc = ? WHERE feed = ? AND id = ?")
        while let row = try items.next() {
            let feed: String = row[0]
            let id: String = row[1]
            let json: Data = row[6]
            let checksum = RecordChecksum.item(
                start: .itemStart(feed: feed), id: id, type: row[2], section: row[3], sort: row[4],
                arrival: UInt64(row[5] as Int64), json: [UInt8](json))
            try updateItem.execute(arguments: [checksum.stored, feed, id])
        }
        let sections = try Row.fetchCursor(
            db, sql: "SELECT feed, id, sort_order, type, header, declared, arrival FROM sections")
        let updateSection = try db.makeStatement(sql: "UPDATE sections SET crc = ? WHERE feed = ? AND id = ?")
        while let row = try sections.next() {
            let checksum = RecordChecksum.section(
                feed: row[0], id: row[1], order: row[2], type: row[3], header: row[4], declared: row[5],
                arrival: UInt64(row[6] as Int64))
            try updateSection.execute(arguments: [checksum.stored, row[0] as String, row[1] as String])
        }
        let feeds = try Row.fetchCursor(db, sql: "SELECT name, seq, epoch, next_arrival FROM feeds")
        let updateFeed = try db.makeStatement(sql: "UPDATE feeds SET crc = ? WHERE name = ?")
        while let row = try feeds.next() {
            let checksum = RecordChecksum.feed(
                name: row[0], seq: UInt64(row[1] as Int64), epoch: row[2], nextArrival: UInt64(row[3] as Int64))
            try updateFeed.execute(arguments: [checksum.stored, row[0] as String])
        }
        let requests = try Row.fetchCursor(db, sql: "SELECT client, req, ord, reply FROM requests")
        let updateRequest = try db.makeStatement(sql: "UPDATE requests SET crc = ? WHERE client = ? AND req = ?")
        while let row = try requests.next() {
            let reply: Data = row[3]
            let checksum = RecordChecksum.request(
                client: row[0], req: row[1], order: UInt64(row[2] as Int64), reply: [UInt8](reply))
            try updateRequest.execute(arguments: [checksum.stored, row[0] as String, row[1] as String])
        }
        let events = try Row.fetchCursor(db, sql: "SELECT feed, seq, body FROM events")
        let updateEvent = try db.makeStatement(sql: "UPDATE events SET crc = ? WHERE feed = ? AND seq = ?")
        while let row = try events.next() {
            let body: Data = row[2]
            let checksum = RecordChecksum.event(feed: row[0], seq: UInt64(row[1] as Int64), body: [UInt8](body))
            try updateEvent.execute(arguments: [checksum.stored, row[0] as String, row[1] as Int64])
        }
    }

    /// Why a row whose `crc` column reads `stored` is damaged, given the checksum of what was
    /// read; nil when they agree.
    static func checksumFailure(stored: Int64?, read: RecordChecksum) -> String? {
        guard let stored else { return "no checksum" }
        guard stored != read.stored else { return nil }
        return "checksum mismatch (written as \(hex(stored)), reads as \(hex(read.stored)))"
    }

    /// The refusal for a damaged record other than an item: its feed (or every feed, for an
    /// answer) cannot be rebuilt as it was, so the start stops with exit 65.
    static func damagedRecord(_ record: String, reason: String, path: String) -> StoreError {
        StoreError(
            .corrupt, path: path,
            message:
                "\(path) holds a damaged record: \(record): \(reason). rowcastd will not change it: run `rowcastd --check-state` to list every damaged record, then restore the latest backup (docs/OPERATIONS.md, \"Backup and restore\") or start with an empty state."
        )
    }

    private static func hex(_ value: Int64) -> String {
        "0x" + String(UInt32(truncatingIfNeeded: value), radix: 16)
    }
}
