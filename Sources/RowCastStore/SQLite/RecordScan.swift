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
    /// Whether items keep their rendered rows, and the quarantine is stored (schema v7).
    let hasRows: Bool
    /// Rows read per table, in the order scanned.
    private(set) var counts: [(table: String, count: Int)] = []
    /// What is wrong, one line per record.
    private(set) var problems: [String] = []

    init(db: Database, checksummed: Bool, hasOwners: Bool, hasRows: Bool) {
        self.db = db
        self.checksummed = checksummed
        self.hasOwners = hasOwners
        self.hasRows = hasRows
    }

    /// The `crc` column, or nothing for a schema without checksums.
    private var crc: String { checksummed ? ", crc" : "" }

    private mutating func verify(_ row: Row, column: Int, _ checksum: RecordChecksum, record: () -> String) {
        guard checksummed,
            let reason = SQLiteFeedStore.checksumFailure(stored: row.storedInteger(column), read: checksum)
        else { return }
        problems.append("\(record()): \(reason)")
    }

    private mutating func wrongType(_ record: String) {
        problems.append("\(record): a value of the wrong type")
    }

    mutating func feeds() throws {
        let owner = hasOwners ? ", owner" : ", NULL"
        let rows = try Row.fetchCursor(db, sql: "SELECT name, seq, epoch, next_arrival\(owner)\(crc) FROM feeds")
        var count = 0
        while let row = try rows.next() {
            count += 1
            let name = row.storedText(0) ?? "?"
            guard let seq = row.storedCount(1), let epoch = row.storedText(2), let next = row.storedCount(3),
                let owner = row.storedOptionalText(4)
            else {
                wrongType("feed \"\(name)\": its counters")
                continue
            }
            let checksum = RecordChecksum.feed(name: name, seq: seq, epoch: epoch, nextArrival: next, owner: owner)
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
            let feed = row.storedText(0) ?? "?"
            let id = row.storedText(1) ?? "?"
            guard let order = row.storedOptionalNumber(2), let type = row.storedOptionalText(3),
                let header = row.storedOptionalText(4), let declared = row.storedInteger(5),
                let arrival = row.storedCount(6)
            else {
                wrongType("feed \"\(feed)\": section \"\(id)\"")
                continue
            }
            let checksum = RecordChecksum.section(
                feed: feed, id: id, order: order, type: type, header: header, declared: declared != 0,
                arrival: arrival)
            verify(row, column: 7, checksum) { "feed \"\(feed)\": section \"\(id)\"" }
        }
        counts.append(("sections", count))
    }

    mutating func items() throws {
        let damage = checksummed ? ", damage" : ", NULL"
        let rendering = hasRows ? ", row_cell, row_json, row_crc" : ""
        let rows = try Row.fetchCursor(
            db, sql: "SELECT feed, id, type, section, sort, arrival, json\(damage)\(crc)\(rendering) FROM items")
        var count = 0
        while let row = try rows.next() {
            count += 1
            let feed = row.storedText(0) ?? "?"
            let id = row.storedText(1) ?? "?"
            let record = "feed \"\(feed)\": item \"\(id)\""
            if let known = row.storedOptionalText(7) ?? nil {
                problems.append(
                    "\(record): damaged, found at an earlier start (\(known)); quarantined until it is sent again or deleted"
                )
                continue
            }
            guard let type = row.storedText(2), let section = row.storedText(3), let sort = row.storedOptionalNumber(4),
                let arrival = row.storedCount(5), let json = row.storedBytes(6)
            else {
                wrongType(record)
                continue
            }
            let checksum = RecordChecksum.item(
                start: .itemStart(feed: feed), id: id, type: type, section: section, sort: sort, arrival: arrival,
                json: json)
            let before = problems.count
            verify(row, column: 8, checksum) { record }
            guard problems.count == before else { continue }
            if hasRows,
                case .damaged(let reason) = SQLiteFeedStore.readRendering(
                    row, column: 9, start: .itemStart(feed: feed), id: id)
            {
                problems.append("\(record): \(reason)")
                continue
            }
            do {
                _ = try RequestDecoder.item(json: json, context: "item \"\(id)\" of feed \"\(feed)\"")
            } catch {
                problems.append("\(record): does not parse: \(error.message)")
            }
        }
        counts.append(("items", count))
    }

    mutating func quarantine() throws {
        let rows = try Row.fetchCursor(
            db, sql: "SELECT feed, id, type, code, reason, plugin, file, at, crc FROM quarantine")
        var count = 0
        while let row = try rows.next() {
            count += 1
            let record = "quarantine: item \"\(row.storedText(1) ?? "?")\" of feed \"\(row.storedText(0) ?? "?")\""
            guard let feed = row.storedText(0), let id = row.storedText(1), let type = row.storedText(2),
                let code = row.storedText(3), let reason = row.storedText(4), let plugin = row.storedText(5),
                let file = row.storedText(6), let at = row.storedInteger(7)
            else {
                wrongType(record)
                continue
            }
            let checksum = RecordChecksum.quarantined(
                feed: feed, id: id, type: type, code: code, reason: reason, plugin: plugin, file: file, at: at)
            verify(row, column: 8, checksum) { record }
        }
        counts.append(("quarantine", count))
    }

    mutating func requests() throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT client, req, ord, reply\(crc) FROM requests")
        var count = 0
        while let row = try rows.next() {
            count += 1
            let client = row.storedText(0) ?? "?"
            let req = row.storedText(1) ?? "?"
            let record = "client \"\(client)\": the remembered answer to request \(req)"
            guard let order = row.storedCount(2), let reply = row.storedBytes(3) else {
                wrongType(record)
                continue
            }
            let checksum = RecordChecksum.request(client: client, req: req, order: order, reply: reply)
            verify(row, column: 4, checksum) { record }
        }
        counts.append(("requests", count))
    }

    /// Logged deltas: a damaged one costs only history at start (a `since` from before it
    /// takes a snapshot), but it is damage all the same.
    mutating func deltas() throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT feed, seq, epoch, at, body, crc FROM deltas")
        var count = 0
        while let row = try rows.next() {
            count += 1
            let feed = row.storedText(0) ?? "?"
            let seq = row.storedCount(1)
            let record = "feed \"\(feed)\": logged delta \(seq.map(String.init) ?? "?")"
            guard let seq, let epoch = row.storedText(2), let at = row.storedInteger(3), let body = row.storedBytes(4)
            else {
                wrongType(record)
                continue
            }
            let checksum = RecordChecksum.delta(feed: feed, seq: seq, epoch: epoch, at: at, body: body)
            verify(row, column: 5, checksum) { record }
        }
        counts.append(("deltas", count))
    }

    mutating func events() throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT feed, seq, body\(crc) FROM events")
        var count = 0
        while let row = try rows.next() {
            count += 1
            let feed = row.storedText(0) ?? "?"
            let seq = row.storedCount(1)
            let record = "feed \"\(feed)\": action event \(seq.map(String.init) ?? "?")"
            guard let seq, let body = row.storedBytes(2) else {
                wrongType(record)
                continue
            }
            let checksum = RecordChecksum.event(feed: feed, seq: seq, body: body)
            verify(row, column: 3, checksum) { record }
        }
        counts.append(("events", count))
    }
}
