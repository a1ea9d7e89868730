import Foundation
import GRDB
import RowCastEngine

/// `StateCheck`'s pass over each table: counts the rows and names every one whose checksum
/// (when the schema has them) fails, and every item whose JSON does not parse or that an
/// earlier start marked damaged.
struct RecordScan {
    let db: Database
    /// Whether the rows carry checksums.
    let checksummed: Bool
    /// Whether feeds record their owner (schema v6).
    let hasOwners: Bool
    /// Rows read per table, in the order scanned.
    private(set) var counts: [(table: String, count: Int)] = []
    /// What is wrong, one line per record.
    private(set) var problems: [String] = []

    init(db: Database, checksummed: Bool, hasOwners: Bool) {
        self.db = db
        self.checksummed = checksummed
        self.hasOwners = hasOwners
    }

    /// The `crc` column, or nothing for a schema without checksums.
    private var crc: String { checksummed ? ", crc" : "" }

    private mutating func verify(_ row: Row, column: Int, _ checksum: RecordChecksum, record: () -> String) {
        guard checksummed, let reason = SQLiteFeedStore.checksumFailure(stored: row[column], read: checksum) else {
            return
        }
        problems.append("\(record()): \(reason)")
    }

    mutating func feeds() throws {
        let owner = hasOwners ? ", owner" : ", NULL"
        let rows = try Row.fetchCursor(db, sql: "SELECT name, seq, epoch, next_arrival\(owner)\(crc) FROM feeds")
        var count = 0
        while let row = try rows.next() {
            count += 1
            let name: String = row[0]
            let checksum = RecordChecksum.feed(
                name: name, seq: UInt64(row[1] as Int64), epoch: row[2], nextArrival: UInt64(row[3] as Int64),
                owner: row[4])
            verify(row, column: 5, checksum) { "feed \"\(name)\": its counters" }
        }
        counts.append(("feeds", count))
    }

    mutating func sections() throws {
        let rows = try Row.fetchCursor(
            db, sql: "SELECT feed, id, sort_order, type, header, declared, arrival\(crc) FROM sections")
        var count = 0
        while let row = try rows.next() {
            count += 1
            let feed: String = row[0]
            let id: String = row[1]
            let header: String? = row[4]
            let checksum = RecordChecksum.section(
                feed: feed, id: id, order: row[2], type: row[3], header: header, declared: row[5],
                arrival: UInt64(row[6] as Int64))
            verify(row, column: 7, checksum) { "feed \"\(feed)\": section \"\(id)\"" }
        }
        counts.append(("sections", count))
    }

    mutating func items() throws {
        let damage = checksummed ? ", damage" : ""
        let rows = try Row.fetchCursor(
            db, sql: "SELECT feed, id, type, section, sort, arrival, json\(crc)\(damage) FROM items")
        var count = 0
        while let row = try rows.next() {
            count += 1
            let feed: String = row[0]
            let id: String = row[1]
            let json = [UInt8](row[6] as Data)
            if checksummed, let known = row[8] as String? {
                problems.append(
                    "feed \"\(feed)\": item \"\(id)\": damaged, found at an earlier start (\(known)); quarantined until it is sent again or deleted"
                )
                continue
            }
            let checksum = RecordChecksum.item(
                start: .itemStart(feed: feed), id: id, type: row[2], section: row[3], sort: row[4],
                arrival: UInt64(row[5] as Int64), json: json)
            let before = problems.count
            verify(row, column: 7, checksum) { "feed \"\(feed)\": item \"\(id)\"" }
            guard problems.count == before else { continue }
            do {
                _ = try RequestDecoder.item(json: json, context: "item \"\(id)\" of feed \"\(feed)\"")
            } catch {
                problems.append("feed \"\(feed)\": item \"\(id)\": does not parse: \(error.message)")
            }
        }
        counts.append(("items", count))
    }

    mutating func requests() throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT client, req, ord, reply\(crc) FROM requests")
        var count = 0
        while let row = try rows.next() {
            count += 1
            let client: String = row[0]
            let req: String = row[1]
            let checksum = RecordChecksum.request(
                client: client, req: req, order: UInt64(row[2] as Int64), reply: [UInt8](row[3] as Data))
            verify(row, column: 4, checksum) { "client \"\(client)\": the remembered answer to request \(req)" }
        }
        counts.append(("requests", count))
    }

    /// Logged deltas: a damaged one costs only history (a `since` from before it takes a
    /// snapshot), but it is damage all the same.
    mutating func deltas() throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT feed, seq, epoch, at, body, crc FROM deltas")
        var count = 0
        while let row = try rows.next() {
            count += 1
            let feed: String = row[0]
            let seq = UInt64(row[1] as Int64)
            let checksum = RecordChecksum.delta(
                feed: feed, seq: seq, epoch: row[2], at: row[3], body: [UInt8](row[4] as Data))
            verify(row, column: 5, checksum) { "feed \"\(feed)\": logged delta \(seq)" }
        }
        counts.append(("deltas", count))
    }

    mutating func events() throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT feed, seq, body\(crc) FROM events")
        var count = 0
        while let row = try rows.next() {
            count += 1
            let feed: String = row[0]
            let seq = UInt64(row[1] as Int64)
            let checksum = RecordChecksum.event(feed: feed, seq: seq, body: [UInt8](row[2] as Data))
            verify(row, column: 3, checksum) { "feed \"\(feed)\": action event \(seq)" }
        }
        counts.append(("events", count))
    }
}
