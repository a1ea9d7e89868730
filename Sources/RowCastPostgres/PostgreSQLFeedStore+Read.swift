import Foundation
import Logging
import RowCastJSON
import RowCastEngine
import RowCastStore
import RowCastWire

extension PostgreSQLFeedStore {
    /// Reads feeds (all when `names` is nil) with their items, sections and logged history,
    /// checking every record's checksum as the SQLite store does: a damaged item is handed
    /// back in `RestoredFeed.damaged`; any other damaged record throws (`corrupt`).
    func readFeeds(_ connection: PostgresConnection, names: [String]?) throws -> [RestoredFeed] {
        let filter = names == nil ? "" : " WHERE feed = ANY($1)"
        let arguments: [PostgresValue] = names.map { [.textArray($0)] } ?? []
        var feeds: [String: RestoredFeed] = [:]
        let feedRows = try connection.query(
            PostgresStatement(
                "SELECT name, seq, epoch, next_arrival, owner, crc FROM rowcast.feeds"
                    + (names == nil ? "" : " WHERE name = ANY($1)"), arguments))
        for row in feedRows {
            guard let name = row.text(0), let seq = row.count(1), let epoch = row.text(2),
                let nextArrival = row.count(3)
            else { throw damaged("the counters of feed \"\(row.text(0) ?? "?")\"", "a value of the wrong type") }
            let owner = row.text(4)
            // NULL: a counters-only update of a feed this process had not read (not checked).
            if let stored = row.integer(5) {
                let read = RecordChecksum.feed(
                    name: name, seq: seq, epoch: epoch, nextArrival: nextArrival, owner: owner)
                if let reason = Self.checksumFailure(stored: stored, read: read) {
                    throw damaged("the counters of feed \"\(name)\"", reason)
                }
            }
            var feed = RestoredFeed(
                name: name, seq: seq, epoch: epoch, nextArrival: nextArrival, items: [], sections: [])
            feed.owner = owner
            feeds[name] = feed
            feedExtras[name] = (nextArrival, owner)
        }
        let sectionRows = try connection.query(
            PostgresStatement(
                "SELECT feed, id, sort_order, type, header, declared, arrival, crc FROM rowcast.sections\(filter)",
                arguments))
        for row in sectionRows {
            guard let feed = row.text(0), feeds[feed] != nil else { continue }
            feeds[feed]!.sections.append(try readSection(row, feed: feed))
        }
        let itemRows = try connection.query(
            PostgresStatement(
                "SELECT feed, id, type, section, sort, arrival, json, crc, damage, row_cell, row_json, row_crc FROM rowcast.items\(filter)",
                arguments))
        for row in itemRows {
            guard let feed = row.text(0), feeds[feed] != nil else { continue }
            switch readItem(row, feed: feed) {
            case .item(let item): feeds[feed]!.items.append(item)
            case .damaged(let damaged): feeds[feed]!.damaged.append(damaged)
            }
        }
        try readHistory(connection, into: &feeds, filter: filter, arguments: arguments)
        return feeds.keys.sorted().map { feeds[$0]! }
    }

    /// An item row as read: the item, or why it is damaged.
    private enum ReadItem {
        case item(PersistedItem)
        case damaged(DamagedItem)
    }

    private func readItem(_ row: PostgresRow, feed: String) -> ReadItem {
        let id = row.text(1) ?? "?"
        if let mark = row.text(8) {
            return .damaged(DamagedItem(feed: feed, id: id, type: row.text(2) ?? "?", reason: mark, known: true))
        }
        guard let type = row.text(2), let section = row.text(3), let sort = row.optionalNumber(4),
            let arrival = row.count(5), let json = row.bytes(6), let stored = row.integer(7)
        else {
            return .damaged(
                DamagedItem(
                    feed: feed, id: id, type: row.text(2) ?? "?", reason: "a value of the wrong type", known: false))
        }
        let start = RecordChecksum.itemStart(feed: feed)
        let read = RecordChecksum.item(
            start: start, id: id, type: type, section: section, sort: sort, arrival: arrival, json: json)
        var failure = Self.checksumFailure(stored: stored, read: read)
        var item = PersistedItem(id: id, type: type, section: section, sort: sort, arrival: arrival, json: json)
        if failure == nil {
            let cell = row.text(9)
            let rowJSON = row.isNull(10) ? nil : row.bytes(10)
            if (cell == nil) != (rowJSON == nil) || row.isNull(11) {
                failure = "its row: a value of the wrong type"
            } else {
                let rowRead = RecordChecksum.itemRow(start: start, id: id, cell: cell, row: rowJSON)
                if let reason = Self.checksumFailure(stored: row.integer(11), read: rowRead) {
                    failure = "its row: \(reason)"
                } else if let cell, let rowJSON {
                    item.row = RenderedRow(cell: cell, bytes: rowJSON)
                }
            }
        }
        if let failure {
            logger.error(
                "stored item record damaged; not served",
                metadata: ["feed": "\(feed)", "item": "\(id)", "reason": "\(failure)"])
            return .damaged(DamagedItem(feed: feed, id: id, type: type, reason: failure, known: false))
        }
        return .item(item)
    }

    private func readSection(_ row: PostgresRow, feed: String) throws -> PersistedSection {
        let id = row.text(1) ?? "?"
        let record = "section \"\(id)\" of feed \"\(feed)\""
        guard let order = row.optionalNumber(2), let declared = row.bool(5), let arrival = row.count(6) else {
            throw damaged(record, "a value of the wrong type")
        }
        let type = row.text(3)
        let headerText = row.text(4)
        let read = RecordChecksum.section(
            feed: feed, id: id, order: order, type: type, header: headerText, declared: declared, arrival: arrival)
        if let reason = Self.checksumFailure(stored: row.integer(7), read: read) { throw damaged(record, reason) }
        var section = PersistedSection(
            id: id, order: order, type: type, header: nil, declared: declared, arrival: arrival)
        if let headerText {
            guard let header = (try? JSONParser.parse(headerText))?.objectValue else {
                throw damaged(record, "its header is not a JSON object")
            }
            section.header = header
        }
        return section
    }

    /// Each feed's history: the deltas of its current epoch that lead without a gap down from
    /// its seq, within the history limits (as `SQLiteFeedStore.readHistory`).
    private func readHistory(
        _ connection: PostgresConnection, into feeds: inout [String: RestoredFeed], filter: String,
        arguments: [PostgresValue]
    ) throws {
        let limits = historyLimits
        guard limits.deltas > 0, !feeds.isEmpty else { return }
        let milliseconds =
            limits.maximumAge.components.seconds * 1000 + limits.maximumAge.components.attoseconds
            / 1_000_000_000_000_000
        let oldest = Int64((Date().timeIntervalSince1970 * 1000).rounded()) - milliseconds
        var bytes = 0
        var ended: Set<String> = []
        let rows = try connection.query(
            PostgresStatement(
                "SELECT feed, seq, epoch, at, body, crc FROM rowcast.deltas\(filter) ORDER BY feed, seq DESC",
                arguments))
        for row in rows {
            guard let feed = row.text(0), let restored = feeds[feed], !ended.contains(feed) else { continue }
            guard let seq = row.count(1), let epoch = row.text(2), let at = row.integer(3), let body = row.bytes(4)
            else {
                ended.insert(feed)
                continue
            }
            let read = RecordChecksum.delta(feed: feed, seq: seq, epoch: epoch, at: at, body: body)
            if let reason = Self.checksumFailure(stored: row.integer(5), read: read) {
                logger.warning(
                    "logged delta damaged; since requests from before it take a snapshot",
                    metadata: ["feed": "\(feed)", "seq": "\(seq)", "reason": "\(reason)"])
                ended.insert(feed)
                continue
            }
            if seq > restored.seq { continue }
            let expected = restored.history.last.map { $0.seq - 1 } ?? restored.seq
            guard seq == expected, epoch == restored.epoch, at >= oldest, restored.history.count < limits.deltas,
                bytes + body.count <= limits.bytes
            else {
                ended.insert(feed)
                continue
            }
            bytes += body.count
            feeds[feed]!.history.append((seq, body))
        }
        for name in feeds.keys where !feeds[name]!.history.isEmpty { feeds[name]!.history.reverse() }
    }

    /// Every remembered answer, in order.
    func readLedger(_ connection: PostgresConnection) throws -> [LedgerEntry] {
        try connection.query(
            PostgresStatement("SELECT client, req, ord, reply, crc FROM rowcast.requests ORDER BY ord")
        )
        .map { row in
            guard let client = row.text(0), let req = row.text(1), let order = row.count(2),
                let reply = row.bytes(3)
            else {
                throw damaged(
                    "a remembered answer of client \"\(row.text(0) ?? "?")\"", "a value of the wrong type")
            }
            let read = RecordChecksum.request(client: client, req: req, order: order, reply: reply)
            if let reason = Self.checksumFailure(stored: row.integer(4), read: read) {
                throw damaged("the remembered answer to request \(req) of client \"\(client)\"", reason)
            }
            return LedgerEntry(key: LedgerKey(client: client, req: req), order: order, reply: reply)
        }
    }

    /// The kept action events (of the partitions in `partitions`, a `bigint[]`, when given),
    /// oldest first per feed.
    func readEvents(_ connection: PostgresConnection, partitions: PostgresValue? = nil) throws -> [ActionEvent] {
        try connection.query(
            PostgresStatement(
                "SELECT feed, seq, body, crc FROM rowcast.events"
                    + (partitions == nil ? "" : " WHERE partition = ANY($1::integer[])") + " ORDER BY feed, seq",
                partitions.map { [$0] } ?? [])
        )
        .map { row in
            guard let feed = row.text(0), let seq = row.count(1), let body = row.bytes(2) else {
                throw damaged("an action event of feed \"\(row.text(0) ?? "?")\"", "a value of the wrong type")
            }
            let read = RecordChecksum.event(feed: feed, seq: seq, body: body)
            if let reason = Self.checksumFailure(stored: row.integer(3), read: read) {
                throw damaged("action event \(seq) of feed \"\(feed)\"", reason)
            }
            return ActionEvent(feed: feed, seq: seq, body: body)
        }
    }

    /// The quarantined items (of the partitions in `partitions`, a `bigint[]`, when given),
    /// oldest first.
    func readQuarantine(
        _ connection: PostgresConnection, partitions: PostgresValue? = nil
    ) throws
        -> [QuarantinedItem]
    {
        try connection.query(
            PostgresStatement(
                "SELECT feed, id, type, code, reason, plugin, file, at, crc FROM rowcast.quarantine"
                    + (partitions == nil ? "" : " WHERE partition = ANY($1::integer[])") + " ORDER BY at, feed, id",
                partitions.map { [$0] } ?? [])
        ).map { row in
            let record = "the quarantine entry of item \"\(row.text(1) ?? "?")\" of feed \"\(row.text(0) ?? "?")\""
            guard let feed = row.text(0), let id = row.text(1), let type = row.text(2), let code = row.text(3),
                let reason = row.text(4), let plugin = row.text(5), let file = row.text(6), let at = row.integer(7)
            else { throw damaged(record, "a value of the wrong type") }
            let read = RecordChecksum.quarantined(
                feed: feed, id: id, type: type, code: code, reason: reason, plugin: plugin, file: file, at: at)
            if let failure = Self.checksumFailure(stored: row.integer(8), read: read) { throw damaged(record, failure) }
            return QuarantinedItem(
                feed: feed, id: id, type: type, code: ErrorCode(rawValue: code), reason: reason, plugin: plugin,
                file: file, at: at)
        }
    }

    /// The recorded renderer identities.
    func readRenderers(_ connection: PostgresConnection) throws -> [RendererRecord] {
        try connection.query(PostgresStatement("SELECT kind, type, identity FROM rowcast.renderers")).compactMap {
            row in
            guard let kind = row.text(0).flatMap(RendererRecord.Kind.init(rawValue:)), let type = row.text(1) else {
                return nil
            }
            return RendererRecord(kind: kind, type: type, identity: row.text(2))
        }
    }

    /// Why a row whose `crc` reads `stored` is damaged, or nil when it matches.
    static func checksumFailure(stored: Int64?, read: RecordChecksum) -> String? {
        guard let stored else { return "no checksum" }
        guard stored != read.stored else { return nil }
        return "checksum mismatch (written as \(String(stored, radix: 16)), reads as \(String(read.stored, radix: 16)))"
    }

    /// The refusal for a damaged record other than an item.
    private func damaged(_ record: String, _ reason: String) -> StoreError {
        StoreError(
            .corrupt, path: url,
            message:
                "the PostgreSQL store \(url) holds a damaged record: \(record): \(reason). rowcastd will not change it: restore the database from a backup, or point --store at an empty database."
        )
    }
}
