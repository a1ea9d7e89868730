import CRowCastChecksum
import Foundation
import GRDB
import RowCastTesting
@testable import RowCastEngine
import RowCastJSON
import RowCastPluginHosting
@testable import RowCastStore
import Testing

/// Stored records carry a CRC32C: a damaged item is never served silently (its feed starts a
/// new epoch once and the item is quarantined), and other damaged records refuse the start.
struct RecordChecksumTests {
    /// A durable engine over the store in `directory`, whose new epochs are `label-1`, ….
    func start(_ directory: ScratchDirectory, label: String) throws -> (EngineHarness, DurableEngine) {
        let harness = EngineHarness()
        var count = 0
        let durable = DurableEngine(
            engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal),
            makeEpoch: {
                count += 1
                return "\(label)-\(count)"
            })
        _ = try durable.start()
        return (harness, durable)
    }

    func send(_ durable: DurableEngine, _ request: JSONValue) throws -> JSONValue {
        let output = try durable.process([IncomingMessage(origin: .control(replyTo: 1), body: request.serialized())])
        return try JSONParser.parse(output.replies[0].body)
    }

    /// Runs `sql` on the stopped store's database.
    func change(_ directory: ScratchDirectory, _ sql: String, _ arguments: StatementArguments = []) throws {
        let queue = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName))
        try queue.write { db in try db.execute(sql: sql, arguments: arguments) }
        try queue.close()
    }

    func ids(_ harness: EngineHarness, _ feed: String) -> [String] {
        (harness.engine.feeds[feed]?.allItems.map(\.input.id) ?? []).sorted()
    }

    @Test("CRC32C gives the standard check value")
    func checkValue() {
        let value = Array("123456789".utf8).withUnsafeBytes { ~rowcast_crc32c_update(0xFFFF_FFFF, $0.baseAddress, 9) }
        #expect(value == 0xE306_9283)
    }

    @Test("each length of input, and fields and numbers, give what the byte-by-byte table gives")
    func instructionMatchesTable() {
        var random = SplitMix64(state: 7)
        let bytes = (0..<300).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        bytes.withUnsafeBytes { buffer in
            for length in 0...buffer.count {
                let start = UInt32(truncatingIfNeeded: random.next())
                let fast = rowcast_crc32c_update(start, buffer.baseAddress, length)
                #expect(fast == rowcast_crc32c_reference(start, buffer.baseAddress, length), "length \(length)")
                var prefix = UInt32(length).littleEndian
                let prefixed = withUnsafeBytes(of: &prefix) { rowcast_crc32c_reference(start, $0.baseAddress, 4) }
                #expect(
                    rowcast_crc32c_field(start, buffer.baseAddress, length)
                        == rowcast_crc32c_reference(prefixed, buffer.baseAddress, length))
            }
        }
        let number: UInt64 = 0x0102_0304_0506_0708
        var little = number.littleEndian
        let byTable = withUnsafeBytes(of: &little) { rowcast_crc32c_reference(0xFFFF_FFFF, $0.baseAddress, 8) }
        #expect(rowcast_crc32c_u64(0xFFFF_FFFF, number) == byTable)
    }

    @Test(
        "a damaged item record, a broken JSON byte or a changed value byte, starts a new epoch once and is quarantined",
        arguments: ["broken JSON", "changed value", "unparseable under a valid checksum"])
    func damagedItem(damage: String) throws {
        let directory = try ScratchDirectory()
        var (harness, durable) = try start(directory, label: "first")
        _ = try send(durable, upsert("f", item("1", data: ["price": 100])))
        _ = try send(durable, upsert("f", item("2", data: ["price": 200])))
        let epoch = harness.engine.feeds["f"]!.epoch
        durable.close()

        let json = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName)).read { db in
            try Data.fetchOne(db, sql: "SELECT json FROM items WHERE id = '2'")!
        }
        var bytes = [UInt8](json)
        switch damage {
        case "broken JSON":
            bytes[0] = UInt8(ascii: "[")
            try change(directory, "UPDATE items SET json = ? WHERE id = '2'", [Data(bytes)])
        case "changed value":
            // The price's first digit (200 becomes 900), not the id's.
            let index = bytes.lastIndex(of: UInt8(ascii: "2"))!
            bytes[index] = UInt8(ascii: "9")
            try change(directory, "UPDATE items SET json = ? WHERE id = '2'", [Data(bytes)])
        default:
            // What a bug could write: the checksum passes, the engine cannot read the item.
            let unparseable = Array(#"{"id":"2"}"#.utf8)
            let row = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName)).read { db in
                try Row.fetchOne(db, sql: "SELECT type, section, sort, arrival FROM items WHERE id = '2'")!
            }
            let checksum = RecordChecksum.item(
                start: .itemStart(feed: "f"), id: "2", type: row[0], section: row[1], sort: row[2],
                arrival: UInt64(row[3] as Int64), json: unparseable)
            try change(
                directory, "UPDATE items SET json = ?, crc = ? WHERE id = '2'", [Data(unparseable), checksum.stored])
        }

        (harness, durable) = try start(directory, label: "second")
        let feed = harness.engine.feeds["f"]!
        #expect(feed.epoch == "second-1")
        #expect(feed.epoch != epoch)
        #expect(ids(harness, "f") == ["1"])
        #expect(harness.engine.quarantine.isDamaged(feed: "f", id: "2"))
        let listed = harness.engine.quarantine.json.arrayValue!
        #expect(listed.count == 1)
        #expect(listed.first?["code"] == "record_damaged")
        let reason = damage.hasPrefix("unparseable") ? "does not parse" : "checksum mismatch"
        #expect(listed.first?["message"]?.stringValue?.contains(reason) == true, "\(listed)")
        // A retry leaves it listed: there is nothing to render.
        _ = try send(durable, ["op": "quarantine", "retry": true])
        #expect(harness.engine.quarantine.isDamaged(feed: "f", id: "2"))
        durable.close()

        // Found once: the next start continues the epoch, and the item is still quarantined.
        (harness, durable) = try start(directory, label: "third")
        #expect(harness.engine.feeds["f"]!.epoch == "second-1")
        #expect(harness.engine.quarantine.isDamaged(feed: "f", id: "2"))
        // Sent again, it is served, leaves the quarantine and is stored whole.
        _ = try send(durable, upsert("f", item("2", data: ["price": 250])))
        #expect(!harness.engine.quarantine.isDamaged(feed: "f", id: "2"))
        durable.close()

        (harness, durable) = try start(directory, label: "fourth")
        #expect(harness.engine.feeds["f"]!.epoch == "second-1")
        #expect(ids(harness, "f") == ["1", "2"])
        #expect(harness.engine.quarantine.count == 0)
        durable.close()
    }

    @Test("deleting a damaged item removes its record and its quarantine entry")
    func deleteDamaged() throws {
        let directory = try ScratchDirectory()
        var (harness, durable) = try start(directory, label: "first")
        _ = try send(durable, upsert("f", item("1")))
        _ = try send(durable, upsert("f", item("2")))
        durable.close()
        try change(directory, "UPDATE items SET arrival = arrival + 1 WHERE id = '2'")

        (harness, durable) = try start(directory, label: "second")
        #expect(harness.engine.quarantine.isDamaged(feed: "f", id: "2"))
        let reply = try send(durable, ["op": "delete", "feed": "f", "id": "2"])
        #expect(reply["ok"] == true)
        #expect(harness.engine.quarantine.count == 0)
        durable.close()

        let left = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName)).read { db in
            try String.fetchAll(db, sql: "SELECT id FROM items ORDER BY id")
        }
        #expect(left == ["1"])
    }

    @Test(
        "a damaged feed, section, answer or event record refuses the start with exit 65, naming it",
        arguments: [
            ("UPDATE feeds SET next_arrival = next_arrival + 5", "the counters of feed \"f\""),
            ("UPDATE sections SET sort_order = 7", "section \"s\" of feed \"f\""),
            ("UPDATE requests SET reply = X'7B7D'", "the remembered answer to request 1 of client \"c\""),
            ("INSERT INTO events(feed, seq, body, crc) VALUES ('f', 1, X'7B7D', 0)", "action event 1 of feed \"f\""),
        ])
    func damagedOtherRecord(sql: String, named: String) throws {
        let directory = try ScratchDirectory()
        let (_, durable) = try start(directory, label: "first")
        _ = try send(durable, ["op": "section", "feed": "f", "section": ["id": "s", "order": 1]])
        _ = try send(durable, ["op": "delete", "feed": "f", "id": "none", "client": "c", "req": 1])
        durable.close()
        try change(directory, sql)

        let store = try SQLiteFeedStore(directory: directory.path, synchronous: .normal)
        defer { store.close() }
        #expect {
            _ = try store.load()
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.exitStatus == 65 && error.message.contains(named) && error.message.contains("--check-state")
        }
    }

    @Test("a v3 database gets a checksum on every row, and loads whole")
    func migratedRowsCarryChecksums() throws {
        let directory = try ScratchDirectory()
        let queue = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName))
        try SQLiteFeedStore.migrator.migrate(queue, upTo: "v3")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO feeds(name, seq, epoch, next_arrival) VALUES ('f', 3, 'old', 3);
                    INSERT INTO sections(feed, id, sort_order, type, header, declared, arrival)
                        VALUES ('f', 's', 1.5, NULL, NULL, 1, 0);
                    INSERT INTO items(feed, id, type, section, sort, arrival, json)
                        VALUES ('f', '1', 'product', 's', 2.5, 1, '{"id":"1","type":"product","section":"s","sort":2.5,"data":{}}');
                    INSERT INTO requests(client, req, ord, reply) VALUES ('c', '1', 1, '{"ok":true}');
                    INSERT INTO events(feed, seq, body) VALUES ('f', 1, '{"event":"action"}');
                    """)
        }
        try queue.close()

        let store = try SQLiteFeedStore(directory: directory.path, synchronous: .normal)
        let state = try store.load()
        store.close()
        #expect(state.feeds.map(\.name) == ["f"])
        #expect(state.feeds[0].items.map(\.id) == ["1"])
        #expect(state.feeds[0].damaged.isEmpty)
        #expect(state.feeds[0].sections.map(\.id) == ["s"])
        #expect(state.ledger.count == 1)
        #expect(state.events.count == 1)
    }

    @Test("-0 as a section order and an item sort comes back as 0 and passes its checksum")
    func negativeZero() throws {
        let directory = try ScratchDirectory()
        var (harness, durable) = try start(directory, label: "first")
        _ = try send(durable, ["op": "section", "feed": "f", "section": ["id": "s", "order": -0.0]])
        _ = try send(durable, upsert("f", item("1", section: "s", sort: -0.0)))
        let epoch = harness.engine.feeds["f"]!.epoch
        durable.close()
        (harness, durable) = try start(directory, label: "second")
        #expect(harness.engine.feeds["f"]!.epoch == epoch)
        #expect(harness.engine.quarantine.count == 0)
        durable.close()
    }

    @Test(
        "a damaged key (not UTF-8) or a value of the wrong type is quarantined once, never a crash; a damaged feed key refuses the start",
        arguments: [
            ("UPDATE items SET id = CAST(X'32FF' AS TEXT) WHERE id = '2'", false),
            ("UPDATE items SET arrival = 'late' WHERE id = '2'", false),
            ("UPDATE items SET arrival = -5 WHERE id = '2'", false),
            ("UPDATE items SET feed = 'g' WHERE id = '2'", true),
        ])
    func damagedKeysAndTypes(sql: String, refused: Bool) throws {
        let directory = try ScratchDirectory()
        var (harness, durable) = try start(directory, label: "first")
        _ = try send(durable, upsert("f", item("1")))
        _ = try send(durable, upsert("f", item("2")))
        durable.close()
        try change(directory, sql)
        if refused {
            let store = try SQLiteFeedStore(directory: directory.path, synchronous: .normal)
            defer { store.close() }
            #expect(throws: StoreError.self) { _ = try store.load() }
            return
        }
        (harness, durable) = try start(directory, label: "second")
        #expect(harness.engine.feeds["f"]!.epoch == "second-1")
        #expect(ids(harness, "f") == ["1"])
        #expect(harness.engine.quarantine.count == 1)
        durable.close()
        // The mark found the row: the next start keeps the epoch.
        (harness, durable) = try start(directory, label: "third")
        #expect(harness.engine.feeds["f"]!.epoch == "second-1")
        #expect(harness.engine.quarantine.count == 1)
        durable.close()
    }
}
