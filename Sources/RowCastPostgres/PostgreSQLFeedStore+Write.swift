import Foundation
import RowCastJSON
import RowCastEngine
import RowCastStore
import RowCastWire

extension PostgreSQLFeedStore {
    /// How many deltas of a feed are logged between two trims of its log (as the SQLite store).
    static let historyTrimInterval: UInt64 = 32

    /// The statements that write one batch, in the order the SQLite store writes it. `extras`
    /// follows each feed's first-arrival counter and owner through the batches.
    func writeStatements(
        for commit: StoreCommit, extras: inout [String: (nextArrival: UInt64, owner: String?)]
    ) -> [PostgresStatement] {
        var statements: [PostgresStatement] = []
        if !commit.droppedFeeds.isEmpty {
            let names = PostgresValue.textArray(commit.droppedFeeds)
            for table in ["items", "sections", "deltas", "quarantine"] {
                statements.append(PostgresStatement("DELETE FROM rowcast.\(table) WHERE feed = ANY($1)", [names]))
            }
            statements.append(PostgresStatement("DELETE FROM rowcast.feeds WHERE name = ANY($1)", [names]))
            for feed in commit.droppedFeeds { extras[feed] = nil }
        }
        for change in commit.feeds { statements += feedStatements(change, extras: &extras) }
        for counters in commit.counters {
            // A feed the store does not have is left alone, as the SQLite store does.
            let extra = extras[counters.feed]
            let checksum = extra.map {
                RecordChecksum.feed(
                    name: counters.feed, seq: counters.seq, epoch: counters.epoch, nextArrival: $0.nextArrival,
                    owner: $0.owner
                ).stored
            }
            statements.append(
                PostgresStatement(
                    "UPDATE rowcast.feeds SET seq = $1, epoch = $2, crc = $3 WHERE name = $4",
                    [
                        .count(counters.seq), .text(counters.epoch), checksum.map { .int($0) } ?? .null(.bigint),
                        .text(counters.feed),
                    ]))
        }
        if !commit.ledger.forgotten.isEmpty {
            statements += PostgresStatement.multiRow(
                "DELETE FROM rowcast.requests WHERE (client, req) IN (VALUES", columns: 2,
                rows: commit.ledger.forgotten.map { [.text($0.client), .text($0.req)] }
            ).map { closing($0) }
        }
        if !commit.ledger.recorded.isEmpty {
            let rows: [[PostgresValue]] = lastPerKey(commit.ledger.recorded) { "\($0.key.client)\u{0}\($0.key.req)" }
                .map { entry in
                    let checksum = RecordChecksum.request(
                        client: entry.key.client, req: entry.key.req, order: entry.order, reply: entry.reply)
                    return [
                        .text(entry.key.client), .text(entry.key.req), .count(entry.order), .bytes(entry.reply),
                        .int(checksum.stored),
                    ]
                }
            statements += PostgresStatement.multiRow(
                "INSERT INTO rowcast.requests(client, req, ord, reply, crc) VALUES", columns: 5, rows: rows,
                suffix:
                    "ON CONFLICT (client, req) DO UPDATE SET ord = excluded.ord, reply = excluded.reply, crc = excluded.crc"
            )
        }
        if !commit.events.isEmpty { statements += eventStatements(commit) }
        if !commit.history.isEmpty || commit.historyMaximumAge != nil { statements += historyStatements(commit) }
        for item in commit.damagedItems {
            statements.append(
                PostgresStatement(
                    "UPDATE rowcast.items SET damage = $1 WHERE feed = $2 AND id = $3",
                    [.text(item.reason), .text(item.feed), .text(item.id)]))
        }
        if !commit.quarantine.isEmpty { statements += quarantineStatements(commit.quarantine) }
        if !commit.renderers.isEmpty {
            let rows: [[PostgresValue]] = lastPerKey(commit.renderers) { "\($0.kind.rawValue)\u{0}\($0.type)" }.map {
                [.text($0.kind.rawValue), .text($0.type), .text($0.identity)]
            }
            statements += PostgresStatement.multiRow(
                "INSERT INTO rowcast.renderers(kind, type, identity) VALUES", columns: 3, rows: rows,
                suffix: "ON CONFLICT (kind, type) DO UPDATE SET identity = excluded.identity")
        }
        return statements
    }

    /// A feed's row, then (after a reset's deletes) its items and sections.
    private func feedStatements(
        _ change: FeedChanges, extras: inout [String: (nextArrival: UInt64, owner: String?)]
    ) -> [PostgresStatement] {
        let checksum = RecordChecksum.feed(
            name: change.feed, seq: change.seq, epoch: change.epoch, nextArrival: change.nextArrival,
            owner: change.owner)
        var statements = [
            PostgresStatement(
                """
                INSERT INTO rowcast.feeds(name, partition, seq, epoch, next_arrival, owner, crc)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (name) DO UPDATE SET seq = excluded.seq, epoch = excluded.epoch,
                    next_arrival = excluded.next_arrival, owner = excluded.owner, crc = excluded.crc
                """,
                [
                    .text(change.feed), .int(Int64(Partition(feed: change.feed).index)), .count(change.seq),
                    .text(change.epoch), .count(change.nextArrival), .text(change.owner), .int(checksum.stored),
                ])
        ]
        extras[change.feed] = (change.nextArrival, change.owner)
        let feed = PostgresValue.text(change.feed)
        if change.replacedAll {
            statements.append(PostgresStatement("DELETE FROM rowcast.items WHERE feed = $1", [feed]))
            statements.append(PostgresStatement("DELETE FROM rowcast.sections WHERE feed = $1", [feed]))
        }
        let start = RecordChecksum.itemStart(feed: change.feed)
        var deleted: [String] = []
        var written: [[PostgresValue]] = []
        for (id, item) in lastPerKey(change.items, key: { $0.id }) {
            guard let item else {
                if !change.replacedAll { deleted.append(id) }
                continue
            }
            let checksum = RecordChecksum.item(
                start: start, id: id, type: item.type, section: item.section, sort: item.sort, arrival: item.arrival,
                json: item.json)
            let rowChecksum = RecordChecksum.itemRow(
                start: start, id: id, cell: item.row?.cell, row: item.row.map { Array($0.bytes) })
            written.append([
                feed, .text(id), .text(item.type), .text(item.section), .double(item.sort), .count(item.arrival),
                .bytes(item.json), .int(checksum.stored), .text(item.row?.cell),
                .bytes(item.row.map { Array($0.bytes) }),
                .int(rowChecksum.stored),
            ])
        }
        if !deleted.isEmpty {
            statements.append(
                PostgresStatement(
                    "DELETE FROM rowcast.items WHERE feed = $1 AND id = ANY($2)", [feed, .textArray(deleted)]))
        }
        statements += PostgresStatement.multiRow(
            "INSERT INTO rowcast.items(feed, id, type, section, sort, arrival, json, crc, row_cell, row_json, row_crc) VALUES",
            columns: 11, rows: written,
            suffix: """
                ON CONFLICT (feed, id) DO UPDATE SET type = excluded.type, section = excluded.section,
                    sort = excluded.sort, arrival = excluded.arrival, json = excluded.json, crc = excluded.crc,
                    damage = NULL, row_cell = excluded.row_cell, row_json = excluded.row_json, row_crc = excluded.row_crc
                """)
        var deletedSections: [String] = []
        var sections: [[PostgresValue]] = []
        for (id, section) in lastPerKey(change.sections, key: { $0.id }) {
            guard let section else {
                if !change.replacedAll { deletedSections.append(id) }
                continue
            }
            let header = section.header.map { String(decoding: JSONValue.object($0).serialized(), as: UTF8.self) }
            let checksum = RecordChecksum.section(
                feed: change.feed, id: id, order: section.order, type: section.type, header: header,
                declared: section.declared, arrival: section.arrival)
            sections.append([
                feed, .text(id), .double(section.order), .text(section.type), .text(header), .bool(section.declared),
                .count(section.arrival), .int(checksum.stored),
            ])
        }
        if !deletedSections.isEmpty {
            statements.append(
                PostgresStatement(
                    "DELETE FROM rowcast.sections WHERE feed = $1 AND id = ANY($2)",
                    [feed, .textArray(deletedSections)]))
        }
        statements += PostgresStatement.multiRow(
            "INSERT INTO rowcast.sections(feed, id, sort_order, type, header, declared, arrival, crc) VALUES",
            columns: 8, rows: sections,
            suffix: """
                ON CONFLICT (feed, id) DO UPDATE SET sort_order = excluded.sort_order, type = excluded.type,
                    header = excluded.header, declared = excluded.declared, arrival = excluded.arrival, crc = excluded.crc
                """)
        return statements
    }

    /// The commit's action events, and the trim of each feed's to the newest `eventRetention`.
    private func eventStatements(_ commit: StoreCommit) -> [PostgresStatement] {
        var newest: [String: UInt64] = [:]
        let rows: [[PostgresValue]] = lastPerKey(commit.events) { "\($0.feed)\u{0}\($0.seq)" }.map { event in
            newest[event.feed] = max(newest[event.feed] ?? 0, event.seq)
            let checksum = RecordChecksum.event(feed: event.feed, seq: event.seq, body: event.body)
            return [
                .text(event.feed), .int(Int64(Partition(feed: event.feed).index)), .count(event.seq),
                .bytes(event.body), .int(checksum.stored),
            ]
        }
        var statements = PostgresStatement.multiRow(
            "INSERT INTO rowcast.events(feed, partition, seq, body, crc) VALUES", columns: 5, rows: rows,
            suffix: "ON CONFLICT (feed, seq) DO UPDATE SET body = excluded.body, crc = excluded.crc")
        let retention = UInt64(commit.eventRetention)
        for (feed, seq) in newest.sorted(by: { $0.key < $1.key }) where seq > retention {
            statements.append(
                PostgresStatement(
                    "DELETE FROM rowcast.events WHERE feed = $1 AND seq <= $2", [.text(feed), .count(seq - retention)]))
        }
        return statements
    }

    /// Logs the commit's deltas and trims the log, as the SQLite store does.
    private func historyStatements(_ commit: StoreCommit) -> [PostgresStatement] {
        let at = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        var statements: [PostgresStatement] = []
        if let age = commit.historyMaximumAge {
            let milliseconds = age.components.seconds * 1000 + age.components.attoseconds / 1_000_000_000_000_000
            if let fence {
                // A cluster node trims its own partitions' logs: the others are theirs to trim,
                // and two nodes deleting the same rows could deadlock.
                let held = PostgresValue.bigintArray(fence.held.keys.sorted().map { Int64($0.index) })
                statements.append(
                    PostgresStatement(
                        """
                        DELETE FROM rowcast.deltas WHERE at < $1
                            AND feed IN (SELECT name FROM rowcast.feeds WHERE partition = ANY($2::integer[]))
                        """, [.int(at - milliseconds), held]))
            } else {
                statements.append(
                    PostgresStatement("DELETE FROM rowcast.deltas WHERE at < $1", [.int(at - milliseconds)]))
            }
        }
        var newest: [String: UInt64] = [:]
        let logged = commit.history.filter { $0.body.count <= HistoryLimits.largestLoggedDelta }
        let rows: [[PostgresValue]] = lastPerKey(logged) { "\($0.feed)\u{0}\($0.seq)" }.map { delta in
            if delta.seq % Self.historyTrimInterval == 0 {
                newest[delta.feed] = max(newest[delta.feed] ?? 0, delta.seq)
            }
            let checksum = RecordChecksum.delta(
                feed: delta.feed, seq: delta.seq, epoch: delta.epoch, at: at, body: delta.body)
            return [
                .text(delta.feed), .count(delta.seq), .text(delta.epoch), .int(at), .bytes(delta.body),
                .int(checksum.stored),
            ]
        }
        statements += PostgresStatement.multiRow(
            "INSERT INTO rowcast.deltas(feed, seq, epoch, at, body, crc) VALUES", columns: 6, rows: rows,
            suffix:
                "ON CONFLICT (feed, seq) DO UPDATE SET epoch = excluded.epoch, at = excluded.at, body = excluded.body, crc = excluded.crc"
        )
        let kept = UInt64(max(commit.historyRetention, 0))
        for (feed, seq) in newest.sorted(by: { $0.key < $1.key }) where seq > kept {
            statements.append(
                PostgresStatement(
                    "DELETE FROM rowcast.deltas WHERE feed = $1 AND seq <= $2", [.text(feed), .count(seq - kept)]))
        }
        return statements
    }

    /// The quarantine's entries written, and those of released items deleted.
    private func quarantineStatements(_ changes: QuarantineChanges) -> [PostgresStatement] {
        var statements = PostgresStatement.multiRow(
            "DELETE FROM rowcast.quarantine WHERE (feed, id) IN (VALUES", columns: 2,
            rows: changes.left.map { [.text($0.feed), .text($0.id)] }
        ).map { closing($0) }
        let rows: [[PostgresValue]] = lastPerKey(changes.entered) { "\($0.feed)\u{0}\($0.id)" }.map { entry in
            let checksum = RecordChecksum.quarantined(
                feed: entry.feed, id: entry.id, type: entry.type, code: entry.code.rawValue, reason: entry.reason,
                plugin: entry.plugin, file: entry.file, at: entry.at)
            return [
                .text(entry.feed), .text(entry.id), .text(entry.type), .text(entry.code.rawValue), .text(entry.reason),
                .text(entry.plugin), .text(entry.file), .int(entry.at), .int(checksum.stored),
                .int(Int64(Partition(feed: entry.feed).index)),
            ]
        }
        statements += PostgresStatement.multiRow(
            "INSERT INTO rowcast.quarantine(feed, id, type, code, reason, plugin, file, at, crc, partition) VALUES",
            columns: 10,
            rows: rows,
            suffix: """
                ON CONFLICT (feed, id) DO UPDATE SET type = excluded.type, code = excluded.code,
                    reason = excluded.reason, plugin = excluded.plugin, file = excluded.file, at = excluded.at,
                    crc = excluded.crc
                """)
        return statements
    }

    /// Closes the `IN (VALUES …` that `multiRow` opened.
    private func closing(_ statement: PostgresStatement) -> PostgresStatement {
        PostgresStatement(statement.sql + ")", statement.parameters)
    }

    /// `elements` with only the last of each key, in the order of those last ones: one
    /// multi-row upsert may not touch a row twice.
    private func lastPerKey<Element>(_ elements: [Element], key: (Element) -> String) -> [Element] {
        var last: [String: Int] = [:]
        for (index, element) in elements.enumerated() { last[key(element)] = index }
        guard last.count < elements.count else { return elements }
        return elements.enumerated().filter { last[key($0.element)] == $0.offset }.map(\.element)
    }
}
