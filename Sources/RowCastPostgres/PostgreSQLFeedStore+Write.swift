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
        var statements: [PostgresStatement?] = []
        if !commit.droppedFeeds.isEmpty {
            let names = PostgresValue.textArray(commit.droppedFeeds)
            for table in ["items", "sections", "deltas", "quarantine"] {
                statements.append(PostgresStatement("DELETE FROM rowcast.\(table) WHERE feed = ANY($1)", [names]))
            }
            statements.append(PostgresStatement("DELETE FROM rowcast.feeds WHERE name = ANY($1)", [names]))
            for feed in commit.droppedFeeds { extras[feed] = nil }
        }
        statements += feedsStatements(commit.feeds, extras: &extras)
        // A feed the store does not have is left alone, as the SQLite store does (the join
        // finds no row); the last counters of a feed are its own.
        let counters: [[PostgresValue]] = lastPerKey(commit.counters, key: \.feed).map { counters in
            let checksum = extras[counters.feed].map {
                RecordChecksum.feed(
                    name: counters.feed, seq: counters.seq, epoch: counters.epoch, nextArrival: $0.nextArrival,
                    owner: $0.owner
                ).stored
            }
            return [.text(counters.feed), .count(counters.seq), .text(counters.epoch), .int(checksum)]
        }
        statements.append(
            rows(
                """
                UPDATE rowcast.feeds SET seq = c.seq, epoch = c.epoch, crc = c.crc
                    FROM {rows} AS c(name, seq, epoch, crc) WHERE feeds.name = c.name
                """, types: [.text, .bigint, .text, .bigint], rows: counters))
        statements.append(
            rows(
                """
                DELETE FROM rowcast.requests USING {rows} AS f(client, req)
                    WHERE requests.client = f.client AND requests.req = f.req
                """, types: [.text, .text], rows: commit.ledger.forgotten.map { [.text($0.client), .text($0.req)] }))
        let recorded: [[PostgresValue]] = lastPerKey(commit.ledger.recorded) { "\($0.key.client)\u{0}\($0.key.req)" }
            .map { entry in
                let checksum = RecordChecksum.request(
                    client: entry.key.client, req: entry.key.req, order: entry.order, reply: entry.reply)
                return [
                    .text(entry.key.client), .text(entry.key.req), .count(entry.order), .bytes(entry.reply),
                    .int(checksum.stored),
                ]
            }
        statements.append(
            rows(
                """
                INSERT INTO rowcast.requests(client, req, ord, reply, crc) SELECT * FROM {rows}
                    ON CONFLICT (client, req) DO UPDATE SET ord = excluded.ord, reply = excluded.reply, crc = excluded.crc
                """, types: [.text, .text, .bigint, .bytea, .bigint], rows: recorded))
        if !commit.events.isEmpty { statements += eventStatements(commit) }
        if !commit.history.isEmpty || commit.historyMaximumAge != nil { statements += historyStatements(commit) }
        statements.append(
            rows(
                """
                UPDATE rowcast.items SET damage = d.reason FROM {rows} AS d(feed, id, reason)
                    WHERE items.feed = d.feed AND items.id = d.id
                """, types: [.text, .text, .text],
                rows: lastPerKey(commit.damagedItems) { "\($0.feed)\u{0}\($0.id)" }.map {
                    [.text($0.feed), .text($0.id), .text($0.reason)]
                }))
        if !commit.quarantine.isEmpty { statements += quarantineStatements(commit.quarantine) }
        let renderers: [[PostgresValue]] = lastPerKey(commit.renderers) { "\($0.kind.rawValue)\u{0}\($0.type)" }.map {
            [.text($0.kind.rawValue), .text($0.type), .text($0.identity)]
        }
        statements.append(
            rows(
                """
                INSERT INTO rowcast.renderers(kind, type, identity) SELECT * FROM {rows}
                    ON CONFLICT (kind, type) DO UPDATE SET identity = excluded.identity
                """, types: [.text, .text, .text], rows: renderers))
        return statements.compactMap { $0 }
    }

    /// The feeds' rows, then (after resets' deletes) their items and sections: a few
    /// statements for all of them. A feed named twice starts another group of statements, so
    /// that no statement touches a row twice.
    private func feedsStatements(
        _ changes: [FeedChanges], extras: inout [String: (nextArrival: UInt64, owner: String?)]
    ) -> [PostgresStatement?] {
        var statements: [PostgresStatement?] = []
        var group: [FeedChanges] = []
        var names = Set<String>()
        for change in changes {
            if !names.insert(change.feed).inserted {
                statements += feedGroupStatements(group, extras: &extras)
                group = []
                names = [change.feed]
            }
            group.append(change)
        }
        statements += feedGroupStatements(group, extras: &extras)
        return statements
    }

    /// The statements of `changes`, each of another feed.
    private func feedGroupStatements(
        _ changes: [FeedChanges], extras: inout [String: (nextArrival: UInt64, owner: String?)]
    ) -> [PostgresStatement?] {
        guard !changes.isEmpty else { return [] }
        var feeds: [[PostgresValue]] = []
        var replaced: [String] = []
        var deletedItems: [[PostgresValue]] = []
        var items: [[PostgresValue]] = []
        var deletedSections: [[PostgresValue]] = []
        var sections: [[PostgresValue]] = []
        for change in changes {
            let checksum = RecordChecksum.feed(
                name: change.feed, seq: change.seq, epoch: change.epoch, nextArrival: change.nextArrival,
                owner: change.owner)
            feeds.append([
                .text(change.feed), .int(Int64(Partition(feed: change.feed).index)), .count(change.seq),
                .text(change.epoch), .count(change.nextArrival), .text(change.owner), .int(checksum.stored),
            ])
            extras[change.feed] = (change.nextArrival, change.owner)
            let feed = PostgresValue.text(change.feed)
            if change.replacedAll { replaced.append(change.feed) }
            let start = RecordChecksum.itemStart(feed: change.feed)
            for (id, item) in lastPerKey(change.items, key: { $0.id }) {
                guard let item else {
                    if !change.replacedAll { deletedItems.append([feed, .text(id)]) }
                    continue
                }
                let checksum = RecordChecksum.item(
                    start: start, id: id, type: item.type, section: item.section, sort: item.sort,
                    arrival: item.arrival, json: item.json)
                let row = item.row.map { Array($0.bytes) }
                let rowChecksum = RecordChecksum.itemRow(start: start, id: id, cell: item.row?.cell, row: row)
                items.append([
                    feed, .text(id), .text(item.type), .text(item.section), .double(item.sort), .count(item.arrival),
                    .bytes(item.json), .int(checksum.stored), .text(item.row?.cell), .bytes(row),
                    .int(rowChecksum.stored),
                ])
            }
            for (id, section) in lastPerKey(change.sections, key: { $0.id }) {
                guard let section else {
                    if !change.replacedAll { deletedSections.append([feed, .text(id)]) }
                    continue
                }
                let header = section.header.map { String(decoding: JSONValue.object($0).serialized(), as: UTF8.self) }
                let checksum = RecordChecksum.section(
                    feed: change.feed, id: id, order: section.order, type: section.type, header: header,
                    declared: section.declared, arrival: section.arrival)
                sections.append([
                    feed, .text(id), .double(section.order), .text(section.type), .text(header),
                    .bool(section.declared), .count(section.arrival), .int(checksum.stored),
                ])
            }
        }
        var statements: [PostgresStatement?] = [
            rows(
                """
                INSERT INTO rowcast.feeds(name, partition, seq, epoch, next_arrival, owner, crc) SELECT * FROM {rows}
                    ON CONFLICT (name) DO UPDATE SET seq = excluded.seq, epoch = excluded.epoch,
                        next_arrival = excluded.next_arrival, owner = excluded.owner, crc = excluded.crc
                """, types: [.text, .bigint, .bigint, .text, .bigint, .text, .bigint], rows: feeds)
        ]
        if !replaced.isEmpty {
            let names = PostgresValue.textArray(replaced)
            statements.append(PostgresStatement("DELETE FROM rowcast.items WHERE feed = ANY($1)", [names]))
            statements.append(PostgresStatement("DELETE FROM rowcast.sections WHERE feed = ANY($1)", [names]))
        }
        statements.append(
            rows(
                """
                DELETE FROM rowcast.items USING {rows} AS d(feed, id) WHERE items.feed = d.feed AND items.id = d.id
                """, types: [.text, .text], rows: deletedItems))
        statements.append(
            rows(
                """
                INSERT INTO rowcast.items(feed, id, type, section, sort, arrival, json, crc, row_cell, row_json, row_crc)
                    SELECT * FROM {rows}
                    ON CONFLICT (feed, id) DO UPDATE SET type = excluded.type, section = excluded.section,
                        sort = excluded.sort, arrival = excluded.arrival, json = excluded.json, crc = excluded.crc,
                        damage = NULL, row_cell = excluded.row_cell, row_json = excluded.row_json,
                        row_crc = excluded.row_crc
                """,
                types: [.text, .text, .text, .text, .double, .bigint, .bytea, .bigint, .text, .bytea, .bigint],
                rows: items))
        statements.append(
            rows(
                """
                DELETE FROM rowcast.sections USING {rows} AS d(feed, id)
                    WHERE sections.feed = d.feed AND sections.id = d.id
                """, types: [.text, .text], rows: deletedSections))
        statements.append(
            rows(
                """
                INSERT INTO rowcast.sections(feed, id, sort_order, type, header, declared, arrival, crc)
                    SELECT * FROM {rows}
                    ON CONFLICT (feed, id) DO UPDATE SET sort_order = excluded.sort_order, type = excluded.type,
                        header = excluded.header, declared = excluded.declared, arrival = excluded.arrival,
                        crc = excluded.crc
                """, types: [.text, .text, .double, .text, .text, .bool, .bigint, .bigint], rows: sections))
        return statements
    }

    /// The commit's action events, and the trim of each feed's to the newest `eventRetention`.
    private func eventStatements(_ commit: StoreCommit) -> [PostgresStatement?] {
        var newest: [String: UInt64] = [:]
        let rows: [[PostgresValue]] = lastPerKey(commit.events) { "\($0.feed)\u{0}\($0.seq)" }.map { event in
            newest[event.feed] = max(newest[event.feed] ?? 0, event.seq)
            let checksum = RecordChecksum.event(feed: event.feed, seq: event.seq, body: event.body)
            return [
                .text(event.feed), .int(Int64(Partition(feed: event.feed).index)), .count(event.seq),
                .bytes(event.body), .int(checksum.stored),
            ]
        }
        let retention = UInt64(commit.eventRetention)
        return [
            self.rows(
                """
                INSERT INTO rowcast.events(feed, partition, seq, body, crc) SELECT * FROM {rows}
                    ON CONFLICT (feed, seq) DO UPDATE SET body = excluded.body, crc = excluded.crc
                """, types: [.text, .bigint, .bigint, .bytea, .bigint], rows: rows),
            self.rows(
                "DELETE FROM rowcast.events USING {rows} AS t(feed, seq) WHERE events.feed = t.feed AND events.seq <= t.seq",
                types: [.text, .bigint],
                rows: newest.sorted(by: { $0.key < $1.key }).filter { $0.value > retention }.map {
                    [.text($0.key), .count($0.value - retention)]
                }),
        ]
    }

    /// Logs the commit's deltas and trims the log, as the SQLite store does.
    private func historyStatements(_ commit: StoreCommit) -> [PostgresStatement?] {
        let at = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        var statements: [PostgresStatement?] = []
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
        statements.append(
            self.rows(
                """
                INSERT INTO rowcast.deltas(feed, seq, epoch, at, body, crc) SELECT * FROM {rows}
                    ON CONFLICT (feed, seq) DO UPDATE SET epoch = excluded.epoch, at = excluded.at,
                        body = excluded.body, crc = excluded.crc
                """, types: [.text, .bigint, .text, .bigint, .bytea, .bigint], rows: rows))
        let kept = UInt64(max(commit.historyRetention, 0))
        statements.append(
            self.rows(
                "DELETE FROM rowcast.deltas USING {rows} AS t(feed, seq) WHERE deltas.feed = t.feed AND deltas.seq <= t.seq",
                types: [.text, .bigint],
                rows: newest.sorted(by: { $0.key < $1.key }).filter { $0.value > kept }.map {
                    [.text($0.key), .count($0.value - kept)]
                }))
        return statements
    }

    /// The quarantine's entries written, and those of released items deleted.
    private func quarantineStatements(_ changes: QuarantineChanges) -> [PostgresStatement?] {
        let entered: [[PostgresValue]] = lastPerKey(changes.entered) { "\($0.feed)\u{0}\($0.id)" }.map { entry in
            let checksum = RecordChecksum.quarantined(
                feed: entry.feed, id: entry.id, type: entry.type, code: entry.code.rawValue, reason: entry.reason,
                plugin: entry.plugin, file: entry.file, at: entry.at)
            return [
                .text(entry.feed), .text(entry.id), .text(entry.type), .text(entry.code.rawValue), .text(entry.reason),
                .text(entry.plugin), .text(entry.file), .int(entry.at), .int(checksum.stored),
                .int(Int64(Partition(feed: entry.feed).index)),
            ]
        }
        return [
            rows(
                """
                DELETE FROM rowcast.quarantine USING {rows} AS d(feed, id)
                    WHERE quarantine.feed = d.feed AND quarantine.id = d.id
                """, types: [.text, .text], rows: changes.left.map { [.text($0.feed), .text($0.id)] }),
            rows(
                """
                INSERT INTO rowcast.quarantine(feed, id, type, code, reason, plugin, file, at, crc, partition)
                    SELECT * FROM {rows}
                    ON CONFLICT (feed, id) DO UPDATE SET type = excluded.type, code = excluded.code,
                        reason = excluded.reason, plugin = excluded.plugin, file = excluded.file, at = excluded.at,
                        crc = excluded.crc
                """, types: [.text, .text, .text, .text, .text, .text, .text, .bigint, .bigint, .bigint], rows: entered),
        ]
    }

    /// A prepared statement that reads `rows` through `{rows}` (`PostgresStatement.rows`), or
    /// nil when there are none.
    private func rows(_ sql: String, types: [PostgresType], rows: [[PostgresValue]]) -> PostgresStatement? {
        PostgresStatement.rows(sql, types: types, rows: rows)
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
