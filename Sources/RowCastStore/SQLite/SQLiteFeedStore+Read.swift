import Foundation
import GRDB
import Logging
import RowCastJSON
import RowCastEngine
import RowCastWire

extension SQLiteFeedStore {
    /// Reads feeds (all when `names` is nil) with their items, sections and logged history,
    /// checking every record's checksum and the type of every value: a damaged item is handed
    /// back in `RestoredFeed.damaged`; any other damaged record throws (`damagedRecord`),
    /// including an item or section row of no feed whose checksum fails (its feed name may be
    /// what was damaged).
    static func readFeeds(
        _ db: Database, names: Set<String>?, history: HistoryLimits, path: String, logger: Logger
    ) throws -> [RestoredFeed] {
        var feeds: [String: RestoredFeed] = [:]
        let wanted: (String) -> Bool = { names?.contains($0) ?? true }
        let feedRows = try Row.fetchCursor(db, sql: "SELECT name, seq, epoch, next_arrival, crc, owner FROM feeds")
        while let row = try feedRows.next() {
            guard let name = row.storedText(0), let seq = row.storedCount(1), let epoch = row.storedText(2),
                let nextArrival = row.storedCount(3), let owner = row.storedOptionalText(5)
            else {
                throw damagedRecord(
                    "the counters of feed \"\(row.storedText(0) ?? "?")\"", reason: "a value of the wrong type",
                    path: path)
            }
            guard wanted(name) else { continue }
            var feed = RestoredFeed(
                name: name, seq: seq, epoch: epoch, nextArrival: nextArrival, items: [], sections: [])
            feed.owner = owner
            let read = RecordChecksum.feed(name: name, seq: seq, epoch: epoch, nextArrival: nextArrival, owner: owner)
            if let reason = checksumFailure(stored: row.storedInteger(4), read: read) {
                throw damagedRecord("the counters of feed \"\(name)\"", reason: reason, path: path)
            }
            feeds[name] = feed
        }
        let filter = names == nil ? "" : " WHERE feed IN (SELECT value FROM json_each(?))"
        let arguments: StatementArguments =
            names.map {
                [String(decoding: JSONValue.array($0.sorted().map(JSONValue.string)).serialized(), as: UTF8.self)]
            } ?? []
        let sectionRows = try Row.fetchCursor(
            db, sql: "SELECT feed, id, sort_order, type, header, declared, arrival, crc FROM sections\(filter)",
            arguments: arguments)
        while let row = try sectionRows.next() {
            guard let feed = row.storedText(0) else {
                throw damagedRecord("a section of no readable feed", reason: "a value of the wrong type", path: path)
            }
            let section = try readSection(row, feed: feed, path: path)
            guard feeds[feed] != nil else {
                // A section of no feed whose checksum passes is left over; it is not served.
                continue
            }
            feeds[feed]!.sections.append(section)
        }
        try readItems(db, into: &feeds, filter: filter, arguments: arguments, path: path, logger: logger)
        if try db.tableExists("deltas") {
            try readHistory(db, into: &feeds, limits: history, filter: filter, arguments: arguments, logger: logger)
        }
        return feeds.keys.sorted().map { feeds[$0]! }
    }

    /// Reads the items of `feeds`, each checked: a damaged one goes to `damaged`; one of no
    /// feed whose checksum fails throws, since its feed name may be what was damaged.
    private static func readItems(
        _ db: Database, into feeds: inout [String: RestoredFeed], filter: String, arguments: StatementArguments,
        path: String, logger: Logger
    ) throws {
        // The id also as stored bytes: a damaged one may not be UTF-8, and its mark must find it.
        let itemRows = try Row.fetchCursor(
            db,
            sql:
                "SELECT feed, id, type, section, sort, arrival, json, crc, damage, CAST(id AS BLOB), row_cell, row_json, row_crc FROM items\(filter)",
            arguments: arguments)
        var checksumStart: (feed: String, checksum: RecordChecksum)?
        while let row = try itemRows.next() {
            guard let feed = row.storedText(0) else {
                throw damagedRecord("an item of no readable feed", reason: "a value of the wrong type", path: path)
            }
            let id = row.storedText(1) ?? "?"
            let storedID = row.storedBytes(9) ?? []
            // Marked by an earlier start: whatever else of it is damaged, it is known.
            if let mark = row.storedOptionalText(8) ?? nil, feeds[feed] != nil {
                feeds[feed]!.damaged.append(
                    DamagedItem(
                        feed: feed, id: id, type: row.storedText(2) ?? "?", reason: mark, known: true,
                        storedID: storedID))
                continue
            }
            guard let type = row.storedText(2), let section = row.storedText(3), let sort = row.storedOptionalNumber(4),
                let arrival = row.storedCount(5), let json = row.storedBytes(6), let known = row.storedOptionalText(8)
            else {
                guard feeds[feed] != nil else {
                    throw damagedRecord(
                        "item \"\(id)\" of feed \"\(feed)\", which does not exist", reason: "a value of the wrong type",
                        path: path)
                }
                feeds[feed]!.damaged.append(
                    DamagedItem(
                        feed: feed, id: id, type: row.storedText(2) ?? "?", reason: "a value of the wrong type",
                        known: false, storedID: storedID))
                continue
            }
            var item = PersistedItem(id: id, type: type, section: section, sort: sort, arrival: arrival, json: json)
            if checksumStart?.feed != feed { checksumStart = (feed, RecordChecksum.itemStart(feed: feed)) }
            let read = RecordChecksum.item(
                start: checksumStart!.checksum, id: id, type: type, section: section, sort: sort, arrival: arrival,
                json: json)
            var failure = known == nil ? checksumFailure(stored: row.storedInteger(7), read: read) : nil
            if failure == nil, known == nil {
                switch readRendering(row, column: 10, start: checksumStart!.checksum, id: id) {
                case .absent: item.rendered = false
                case .row(let rendered): item.row = rendered
                case .damaged(let reason): failure = reason
                }
            }
            guard feeds[feed] != nil else {
                if let failure {
                    throw damagedRecord(
                        "item \"\(id)\" of feed \"\(feed)\", which does not exist", reason: failure, path: path)
                }
                continue
            }
            if let known {
                feeds[feed]!.damaged.append(
                    DamagedItem(feed: feed, id: id, type: type, reason: known, known: true, storedID: storedID))
            } else if let failure {
                logger.error(
                    "stored item record damaged; not served",
                    metadata: ["feed": "\(feed)", "item": "\(id)", "reason": "\(failure)"])
                feeds[feed]!.damaged.append(
                    DamagedItem(feed: feed, id: id, type: type, reason: failure, known: false, storedID: storedID))
            } else {
                feeds[feed]!.items.append(item)
            }
        }
    }

    /// An item row's stored rendering, as read and checked.
    enum StoredRendering {
        /// None: a record written before v7.
        case absent
        /// The row (nil: the item had none).
        case row(RenderedRow?)
        /// Damaged, and why (e.g. `its row: checksum mismatch (...)`).
        case damaged(String)
    }

    /// The stored rendering of an item row whose `row_cell`, `row_json` and `row_crc` are the
    /// columns from `column` on, checked against `RecordChecksum.itemRow`. (A non-generic
    /// enum: a `Result` of a tuple looked its generic metadata up for every row.)
    static func readRendering(_ row: Row, column: Int, start: RecordChecksum, id: String) -> StoredRendering {
        guard let storedCRC = row.storedOptionalInteger(column + 2) else {
            return .damaged("its row: a value of the wrong type")
        }
        guard let storedCRC else { return .absent }
        guard let cell = row.storedOptionalText(column), let json = row.storedOptionalBytes(column + 1),
            (cell == nil) == (json == nil)
        else { return .damaged("its row: a value of the wrong type") }
        let read = RecordChecksum.itemRow(start: start, id: id, cell: cell, row: json)
        if let failure = checksumFailure(stored: storedCRC, read: read) { return .damaged("its row: \(failure)") }
        guard let cell, let json else { return .row(nil) }
        return .row(RenderedRow(cell: cell, bytes: json))
    }

    /// A section row, checked.
    private static func readSection(_ row: Row, feed: String, path: String) throws -> PersistedSection {
        let id = row.storedText(1) ?? "?"
        let record = "section \"\(id)\" of feed \"\(feed)\""
        guard let order = row.storedOptionalNumber(2), let type = row.storedOptionalText(3),
            let headerText = row.storedOptionalText(4), let declared = row.storedInteger(5),
            let arrival = row.storedCount(6)
        else { throw damagedRecord(record, reason: "a value of the wrong type", path: path) }
        let section = PersistedSection(
            id: id, order: order, type: type, header: nil, declared: declared != 0, arrival: arrival)
        let read = RecordChecksum.section(
            feed: feed, id: id, order: order, type: type, header: headerText, declared: declared != 0,
            arrival: arrival)
        if let reason = checksumFailure(stored: row.storedInteger(7), read: read) {
            throw damagedRecord(record, reason: reason, path: path)
        }
        guard let headerText else { return section }
        guard let header = (try? JSONParser.parse(headerText))?.objectValue else {
            throw damagedRecord(record, reason: "its header is not a JSON object", path: path)
        }
        var withHeader = section
        withHeader.header = header
        return withHeader
    }

    /// Reads every remembered answer.
    static func readLedger(_ db: Database, path: String) throws -> [LedgerEntry] {
        try Row.fetchAll(db, sql: "SELECT client, req, ord, reply, crc FROM requests ORDER BY ord").map { row in
            guard let client = row.storedText(0), let req = row.storedText(1), let order = row.storedCount(2),
                let reply = row.storedBytes(3)
            else {
                throw damagedRecord(
                    "a remembered answer of client \"\(row.storedText(0) ?? "?")\"",
                    reason: "a value of the wrong type",
                    path: path)
            }
            let entry = LedgerEntry(key: LedgerKey(client: client, req: req), order: order, reply: reply)
            let read = RecordChecksum.request(client: client, req: req, order: order, reply: reply)
            if let reason = checksumFailure(stored: row.storedInteger(4), read: read) {
                throw damagedRecord(
                    "the remembered answer to request \(req) of client \"\(client)\"", reason: reason, path: path)
            }
            return entry
        }
    }

    /// Reads the kept action events, oldest first per feed.
    static func readEvents(_ db: Database, path: String) throws -> [ActionEvent] {
        try Row.fetchAll(db, sql: "SELECT feed, seq, body, crc FROM events ORDER BY feed, seq").map { row in
            guard let feed = row.storedText(0), let seq = row.storedCount(1), let body = row.storedBytes(2) else {
                throw damagedRecord(
                    "an action event of feed \"\(row.storedText(0) ?? "?")\"", reason: "a value of the wrong type",
                    path: path)
            }
            let read = RecordChecksum.event(feed: feed, seq: seq, body: body)
            if let reason = checksumFailure(stored: row.storedInteger(3), read: read) {
                throw damagedRecord("action event \(seq) of feed \"\(feed)\"", reason: reason, path: path)
            }
            return ActionEvent(feed: feed, seq: seq, body: body)
        }
    }

    /// Reads the quarantined items, oldest first (ties in the order of their key).
    static func readQuarantine(_ db: Database, path: String) throws -> [QuarantinedItem] {
        try Row.fetchAll(
            db, sql: "SELECT feed, id, type, code, reason, plugin, file, at, crc FROM quarantine ORDER BY at, feed, id"
        ).map { row in
            guard let feed = row.storedText(0), let id = row.storedText(1), let type = row.storedText(2),
                let code = row.storedText(3), let reason = row.storedText(4), let plugin = row.storedText(5),
                let file = row.storedText(6), let at = row.storedInteger(7)
            else {
                throw damagedRecord(
                    "the quarantine entry of item \"\(row.storedText(1) ?? "?")\" of feed \"\(row.storedText(0) ?? "?")\"",
                    reason: "a value of the wrong type", path: path)
            }
            let read = RecordChecksum.quarantined(
                feed: feed, id: id, type: type, code: code, reason: reason, plugin: plugin, file: file, at: at)
            if let failure = checksumFailure(stored: row.storedInteger(8), read: read) {
                throw damagedRecord(
                    "the quarantine entry of item \"\(id)\" of feed \"\(feed)\"", reason: failure, path: path)
            }
            return QuarantinedItem(
                feed: feed, id: id, type: type, code: ErrorCode(rawValue: code), reason: reason, plugin: plugin,
                file: file, at: at)
        }
    }

    /// Reads the recorded renderer identities.
    static func readRenderers(_ db: Database) throws -> [RendererRecord] {
        try Row.fetchAll(db, sql: "SELECT kind, type, identity FROM renderers").compactMap { row in
            guard let kind = RendererRecord.Kind(rawValue: row[0]) else { return nil }
            return RendererRecord(kind: kind, type: row[1], identity: row[2])
        }
    }
}
