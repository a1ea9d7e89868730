import Foundation
import GRDB
import Logging
import RowCastJSON
import RowCastEngine

extension SQLiteFeedStore {
    /// Reads feeds (all when `names` is nil) with their items and sections.
    static func readFeeds(_ db: Database, names: Set<String>?, logger: Logger) throws -> [RestoredFeed] {
        var feeds: [String: RestoredFeed] = [:]
        let wanted: (String) -> Bool = { names?.contains($0) ?? true }
        let feedRows = try Row.fetchCursor(db, sql: "SELECT name, seq, epoch, next_arrival FROM feeds")
        while let row = try feedRows.next() {
            let name: String = row[0]
            guard wanted(name) else { continue }
            feeds[name] = RestoredFeed(
                name: name, seq: UInt64(row[1] as Int64), epoch: row[2], nextArrival: UInt64(row[3] as Int64),
                items: [], sections: [])
        }
        let filter = names == nil ? "" : " WHERE feed IN (SELECT value FROM json_each(?))"
        let arguments: StatementArguments =
            names.map {
                [String(decoding: JSONValue.array($0.sorted().map(JSONValue.string)).serialized(), as: UTF8.self)]
            } ?? []
        let sectionRows = try Row.fetchCursor(
            db, sql: "SELECT feed, id, sort_order, type, header, declared, arrival FROM sections\(filter)",
            arguments: arguments)
        while let row = try sectionRows.next() {
            let feed: String = row[0]
            guard feeds[feed] != nil else { continue }
            var header: JSONObject?
            if let text = row[4] as String? {
                header = (try? JSONParser.parse(text))?.objectValue
                if header == nil {
                    logger.error(
                        "stored section header unreadable; dropped",
                        metadata: ["feed": "\(feed)", "section": "\(row[1] as String)"])
                }
            }
            feeds[feed]!.sections.append(
                PersistedSection(
                    id: row[1], order: row[2], type: row[3], header: header, declared: row[5],
                    arrival: UInt64(row[6] as Int64)))
        }
        let itemRows = try Row.fetchCursor(
            db, sql: "SELECT feed, id, type, section, sort, arrival, json FROM items\(filter)", arguments: arguments)
        while let row = try itemRows.next() {
            let feed: String = row[0]
            guard feeds[feed] != nil else { continue }
            let json: Data = row[6]
            feeds[feed]!.items.append(
                PersistedItem(
                    id: row[1], type: row[2], section: row[3], sort: row[4], arrival: UInt64(row[5] as Int64),
                    json: [UInt8](json)))
        }
        return feeds.keys.sorted().map { feeds[$0]! }
    }

    /// Reads every remembered answer.
    static func readLedger(_ db: Database) throws -> [LedgerEntry] {
        try Row.fetchAll(db, sql: "SELECT client, req, ord, reply FROM requests ORDER BY ord").map { row in
            let reply: Data = row[3]
            return LedgerEntry(
                key: LedgerKey(client: row[0], req: row[1]), order: UInt64(row[2] as Int64), reply: [UInt8](reply))
        }
    }

    /// Reads the kept action events, oldest first per feed.
    static func readEvents(_ db: Database) throws -> [ActionEvent] {
        try Row.fetchAll(db, sql: "SELECT feed, seq, body FROM events ORDER BY feed, seq").map { row in
            let body: Data = row[2]
            return ActionEvent(feed: row[0], seq: UInt64(row[1] as Int64), body: [UInt8](body))
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
