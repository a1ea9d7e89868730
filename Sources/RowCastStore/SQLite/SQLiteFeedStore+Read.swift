import Foundation
import GRDB
import Logging
import RowCastJSON
import RowCastEngine

extension SQLiteFeedStore {
    /// Reads feeds (all when `names` is nil) with their items and sections, checking every
    /// record's checksum: a damaged item is handed back in `RestoredFeed.damaged`; a damaged
    /// feed or section row throws (`damagedRecord`).
    static func readFeeds(_ db: Database, names: Set<String>?, path: String, logger: Logger) throws -> [RestoredFeed] {
        var feeds: [String: RestoredFeed] = [:]
        let wanted: (String) -> Bool = { names?.contains($0) ?? true }
        let feedRows = try Row.fetchCursor(db, sql: "SELECT name, seq, epoch, next_arrival, crc, owner FROM feeds")
        while let row = try feedRows.next() {
            let name: String = row[0]
            guard wanted(name) else { continue }
            var feed = RestoredFeed(
                name: name, seq: UInt64(row[1] as Int64), epoch: row[2], nextArrival: UInt64(row[3] as Int64),
                items: [], sections: [])
            feed.owner = row[5]
            let read = RecordChecksum.feed(
                name: name, seq: feed.seq, epoch: feed.epoch, nextArrival: feed.nextArrival, owner: feed.owner)
            if let reason = checksumFailure(stored: row[4], read: read) {
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
            let feed: String = row[0]
            guard feeds[feed] != nil else { continue }
            let section = try readSection(row, feed: feed, path: path, logger: logger)
            feeds[feed]!.sections.append(section)
        }
        let itemRows = try Row.fetchCursor(
            db, sql: "SELECT feed, id, type, section, sort, arrival, json, crc, damage FROM items\(filter)",
            arguments: arguments)
        var checksumStart: (feed: String, checksum: RecordChecksum)?
        while let row = try itemRows.next() {
            let feed: String = row[0]
            guard feeds[feed] != nil else { continue }
            let json: Data = row[6]
            let item = PersistedItem(
                id: row[1], type: row[2], section: row[3], sort: row[4], arrival: UInt64(row[5] as Int64),
                json: [UInt8](json))
            if checksumStart?.feed != feed { checksumStart = (feed, RecordChecksum.itemStart(feed: feed)) }
            let read = RecordChecksum.item(
                start: checksumStart!.checksum, id: item.id, type: item.type, section: item.section, sort: item.sort,
                arrival: item.arrival, json: item.json)
            if let known = row[8] as String? {
                feeds[feed]!.damaged.append(
                    DamagedItem(feed: feed, id: item.id, type: item.type, reason: known, known: true))
            } else if let reason = checksumFailure(stored: row[7], read: read) {
                logger.error(
                    "stored item record damaged; not served",
                    metadata: ["feed": "\(feed)", "item": "\(item.id)", "reason": "\(reason)"])
                feeds[feed]!.damaged.append(
                    DamagedItem(feed: feed, id: item.id, type: item.type, reason: reason, known: false))
            } else {
                feeds[feed]!.items.append(item)
            }
        }
        if try db.tableExists("deltas") {
            try readHistory(db, into: &feeds, filter: filter, arguments: arguments, logger: logger)
        }
        return feeds.keys.sorted().map { feeds[$0]! }
    }

    /// Reads the delta log into each feed's `history`: the deltas of its current epoch that
    /// lead without a gap up to its seq. A delta that fails its checksum is left out with
    /// every older one (a `since` before it takes a snapshot).
    private static func readHistory(
        _ db: Database, into feeds: inout [String: RestoredFeed], filter: String, arguments: StatementArguments,
        logger: Logger
    ) throws {
        let rows = try Row.fetchCursor(
            db, sql: "SELECT feed, seq, epoch, at, body, crc FROM deltas\(filter) ORDER BY feed, seq",
            arguments: arguments)
        while let row = try rows.next() {
            let feed: String = row[0]
            guard let restored = feeds[feed] else { continue }
            let seq = UInt64(row[1] as Int64)
            let epoch: String = row[2]
            let body = [UInt8](row[4] as Data)
            let read = RecordChecksum.delta(feed: feed, seq: seq, epoch: epoch, at: row[3], body: body)
            if let reason = checksumFailure(stored: row[5], read: read) {
                logger.warning(
                    "logged delta damaged; since requests from before it take a snapshot",
                    metadata: ["feed": "\(feed)", "seq": "\(seq)", "reason": "\(reason)"])
                feeds[feed]!.history.removeAll()
                continue
            }
            guard epoch == restored.epoch, seq <= restored.seq else { continue }
            if let last = restored.history.last?.seq, last + 1 != seq { feeds[feed]!.history.removeAll() }
            feeds[feed]!.history.append((seq, body))
        }
        for (name, feed) in feeds where feed.history.last?.seq != feed.seq {
            feeds[name]!.history.removeAll()
        }
    }

    /// A section row, checked.
    private static func readSection(_ row: Row, feed: String, path: String, logger: Logger) throws -> PersistedSection {
        let id: String = row[1]
        let headerText: String? = row[4]
        let section = PersistedSection(
            id: id, order: row[2], type: row[3], header: nil, declared: row[5], arrival: UInt64(row[6] as Int64))
        let read = RecordChecksum.section(
            feed: feed, id: id, order: section.order, type: section.type, header: headerText,
            declared: section.declared, arrival: section.arrival)
        if let reason = checksumFailure(stored: row[7], read: read) {
            throw damagedRecord("section \"\(id)\" of feed \"\(feed)\"", reason: reason, path: path)
        }
        guard let headerText else { return section }
        guard let header = (try? JSONParser.parse(headerText))?.objectValue else {
            throw damagedRecord(
                "section \"\(id)\" of feed \"\(feed)\"", reason: "its header is not a JSON object", path: path)
        }
        var withHeader = section
        withHeader.header = header
        return withHeader
    }

    /// Reads every remembered answer.
    static func readLedger(_ db: Database, path: String) throws -> [LedgerEntry] {
        try Row.fetchAll(db, sql: "SELECT client, req, ord, reply, crc FROM requests ORDER BY ord").map { row in
            let reply: Data = row[3]
            let entry = LedgerEntry(
                key: LedgerKey(client: row[0], req: row[1]), order: UInt64(row[2] as Int64), reply: [UInt8](reply))
            let read = RecordChecksum.request(
                client: entry.key.client, req: entry.key.req, order: entry.order, reply: entry.reply)
            if let reason = checksumFailure(stored: row[4], read: read) {
                throw damagedRecord(
                    "the remembered answer to request \(entry.key.req) of client \"\(entry.key.client)\"",
                    reason: reason, path: path)
            }
            return entry
        }
    }

    /// Reads the kept action events, oldest first per feed.
    static func readEvents(_ db: Database, path: String) throws -> [ActionEvent] {
        try Row.fetchAll(db, sql: "SELECT feed, seq, body, crc FROM events ORDER BY feed, seq").map { row in
            let body: Data = row[2]
            let event = ActionEvent(feed: row[0], seq: UInt64(row[1] as Int64), body: [UInt8](body))
            let read = RecordChecksum.event(feed: event.feed, seq: event.seq, body: event.body)
            if let reason = checksumFailure(stored: row[3], read: read) {
                throw damagedRecord(
                    "action event \(event.seq) of feed \"\(event.feed)\"", reason: reason, path: path)
            }
            return event
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
