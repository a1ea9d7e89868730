import Foundation
import GRDB
@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastJSON
import RowCastTesting
import Testing

/// The SQLite store on real files in temporary directories.
struct SQLiteFeedStoreTests {
    func open(
        _ directory: ScratchDirectory, _ synchronous: SQLiteFeedStore.Synchronous = .normal
    ) throws -> SQLiteFeedStore {
        try SQLiteFeedStore(directory: directory.path, synchronous: synchronous)
    }

    /// Random operations through an engine, committed batch by batch.
    func drive(_ harness: EngineHarness, durable: DurableEngine, batches: Int, seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        var token = 0
        for _ in 0..<batches {
            var messages: [IncomingMessage] = []
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                let id = "i\(Int.random(in: 0..<30, using: &random))"
                let section = "s\(Int.random(in: 0..<4, using: &random))"
                let request: JSONValue
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<6:
                    request = upsert(
                        "f",
                        item(
                            id, type: Bool.random(using: &random) ? "product" : "ad", section: section,
                            sort: Double(Int.random(in: 0..<3, using: &random))))
                case 6: request = ["op": "delete", "feed": "f", "id": .string(id)]
                case 7:
                    request = [
                        "op": "section", "feed": "f",
                        "section": [
                            "id": .string(section), "order": .number(Double(Int.random(in: -2..<3, using: &random))),
                            "type": "banner", "header": ["t": "x"],
                        ],
                    ]
                case 8: request = ["op": "delete_section", "feed": "f", "id": .string(section)]
                default:
                    request = [
                        "op": "reset", "feed": "f",
                        "items": .array(
                            (0..<Int.random(in: 0..<6, using: &random)).map { _ in
                                item(
                                    "i\(Int.random(in: 0..<30, using: &random))",
                                    section: "s\(Int.random(in: 0..<4, using: &random))")
                            }),
                    ]
                }
                token += 1
                var object = request.objectValue!
                object["client"] = "t"
                object["req"] = .number(Double(token))
                messages.append(
                    IncomingMessage(origin: .control(replyTo: token), body: JSONValue.object(object).serialized()))
            }
            _ = try durable.process(messages)
        }
    }

    @Test("feeds committed batch by batch come back with the same snapshot, seq, epoch and answers")
    func roundTrip() throws {
        let directory = try ScratchDirectory()
        let renderer = FakeRenderer(itemTypes: ["product", "ad"], headerTypes: ["banner"])
        let harness = EngineHarness(renderer: renderer)
        let durable = DurableEngine(engine: harness.engine, store: try open(directory))
        #expect(try durable.start().isEmpty)
        try drive(harness, durable: durable, batches: 200, seed: 11)
        let before = harness.snapshot("f")
        durable.close()

        let store = try open(directory)
        #expect(store.continuity == .continued)
        let restarted = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"], headerTypes: ["banner"]))
        let again = DurableEngine(engine: restarted.engine, store: store)
        _ = try again.start()
        #expect(restarted.snapshot("f") == before)
        #expect(restarted.engine.ledger.count == harness.engine.ledger.count)
        // A repeat of the last request is answered from the stored ledger.
        let repeated = try again.process([
            IncomingMessage(
                origin: .control(replyTo: 1),
                body: Array(#"{"op":"delete","feed":"f","id":"zz","client":"t","req":1}"#.utf8))
        ])
        #expect(repeated.publications.isEmpty)
        again.close()
    }

    @Test(
        "item rows come back byte for byte: ids and sections with control characters and non-ASCII, with and without a sort key, an empty JSON"
    )
    func itemRowsExact() throws {
        let directory = try ScratchDirectory()
        let store = try open(directory)
        let written = [
            PersistedItem(
                id: "a\u{1}b", type: "product", section: "s\u{1F}1", sort: -2.5, arrival: 1,
                json: Array(#"{"id":"a\u0001b"}"#.utf8)),
            PersistedItem(
                id: "é€😀", type: "ad", section: "default", sort: nil, arrival: 2, json: Array("{\"x\":\"é\"}".utf8)),
            PersistedItem(id: "plain", type: "product", section: "s", sort: 0, arrival: 3, json: []),
        ]
        var commit = StoreCommit()
        commit.feeds = [
            FeedChanges(
                feed: "f", seq: 1, epoch: "e", nextArrival: 4, replacedAll: false,
                items: written.map { (id: $0.id, item: $0) }, sections: [])
        ]
        try store.commit([commit])
        store.close()
        let reopened = try open(directory)
        let read = try #require(try reopened.feeds(named: ["f"]).first).items.sorted { $0.arrival < $1.arrival }
        #expect(read == written)
        reopened.close()
    }

    @Test("the schema is created by every migration, in WAL mode with the chosen synchronous")
    func schema() throws {
        let directory = try ScratchDirectory()
        try open(directory, .full).close()
        let queue = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName))
        let (migrations, journal, tables, durability, clean) = try queue.read { db throws in
            (
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"),
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"),
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'durability'"),
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'clean'")
            )
        }
        #expect(migrations == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"])
        #expect(journal == "wal")
        #expect(tables.isSuperset(of: ["meta", "feeds", "items", "sections", "requests", "renderers", "events"]))
        #expect(durability == "full")
        #expect(clean == "1")
    }

    @Test("a database written by a newer rowcastd is refused, naming the file")
    func newerSchema() throws {
        let directory = try ScratchDirectory()
        try open(directory).close()
        let path = directory.file(SQLiteFeedStore.databaseFileName)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations(identifier) VALUES ('v99')") }
        try queue.close()
        let error = try #require(throws: StoreError.self) { try open(directory) }
        #expect(error.kind == .newerSchema)
        #expect(error.exitStatus == 65)
        #expect(error.message.contains(path))
        #expect(error.message.contains("newer rowcastd"))
    }

    @Test("a damaged file is refused and left as it was")
    func corrupt() throws {
        let directory = try ScratchDirectory()
        let path = directory.file(SQLiteFeedStore.databaseFileName)
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: StoreError.self) { try open(directory) }
        #expect(error.kind == .corrupt)
        #expect(error.exitStatus == 65)
        #expect(error.message.contains(path))
        #expect(error.message.contains("move it aside"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    @Test("a database with a damaged page is refused")
    func damagedPage() throws {
        let directory = try ScratchDirectory()
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"], headerTypes: ["banner"]))
        let durable = DurableEngine(engine: harness.engine, store: try open(directory))
        _ = try durable.start()
        _ = try durable.process(
            (0..<400).map {
                IncomingMessage(
                    origin: .ingest,
                    body: upsert("f", item("item-\($0)", data: ["name": .string(String(repeating: "x", count: 200))]))
                        .serialized())
            })
        durable.close()
        let path = directory.file(SQLiteFeedStore.databaseFileName)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count > 4 * 4096)
        for index in (2 * 4096 + 8)..<(3 * 4096) { bytes[index] = 0xA5 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: StoreError.self) { try open(directory) }
        #expect(error.kind == .corrupt)
    }

    @Test("an SQLite file of another program is refused")
    func foreign() throws {
        let directory = try ScratchDirectory()
        let queue = try DatabaseQueue(path: directory.file(SQLiteFeedStore.databaseFileName))
        try queue.write { db in try db.execute(sql: "CREATE TABLE photos (id INTEGER PRIMARY KEY)") }
        try queue.close()
        let error = try #require(throws: StoreError.self) { try open(directory) }
        #expect(error.kind == .foreign)
        #expect(error.message.contains("photos"))
    }

    @Test("a state directory that is a file, or under one, cannot be used")
    func unusableDirectory() throws {
        let directory = try ScratchDirectory()
        let file = directory.file("plain")
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        for path in [file, file + "/state"] {
            let error = try #require(throws: StoreError.self) {
                try SQLiteFeedStore(directory: path, synchronous: .normal)
            }
            #expect(error.kind == .unwritable)
            #expect(error.exitStatus == 73)
            #expect(error.message.contains(path))
        }
    }

    @Test("a missing directory is created; a second store on it is refused while the first is open")
    func createAndLock() throws {
        let directory = try ScratchDirectory()
        let nested = directory.file("a/b/state")
        let store = try SQLiteFeedStore(directory: nested, synchronous: .normal)
        #expect(store.continuity == .fresh)
        let error = try #require(throws: StoreError.self) {
            try SQLiteFeedStore(directory: nested, synchronous: .normal)
        }
        #expect(error.kind == .locked)
        #expect(error.message.contains("\(getpid())"))
        store.close()
        try SQLiteFeedStore(directory: nested, synchronous: .normal).close()
    }

    @Test(
        "a closed store's directory can be opened again at once, even while a child process still holds the lock file")
    func relockWhileChildHoldsLockFile() throws {
        let directory = try ScratchDirectory()
        let store = try open(directory)
        // A child that shares the lock's open file, as one forked by another thread does
        // until its exec: here for as long as it sleeps (the descriptor dup'd to 3).
        let lockPath = URL(fileURLWithPath: directory.file("rowcast.lock")).resolvingSymlinksInPath().path
        let descriptors = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap {
            Int32($0)
        }
        let lock = try #require(
            descriptors.first { descriptor in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) == lockPath
            })
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, lock, 3)
        let words: [String] = ["sleep", "30"]
        let argv = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        try #require(posix_spawnp(&child, "sleep", &actions, nil, argv, environ) == 0)
        defer {
            _ = kill(child, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(child, &status, 0)
        }
        store.close()
        // Refused as "in use by another rowcastd" with this process's pid when the close left
        // the lock to the child.
        try open(directory).close()
    }

    @Test(
        "an empty (0-byte), missing or foreign database under a marker that reached commits is refused untouched; accepted, it starts fresh"
    )
    func lostDatabase() throws {
        for loss in ["empty", "missing", "foreign", "no store"] {
            let directory = try ScratchDirectory()
            let database = directory.file(SQLiteFeedStore.databaseFileName)
            let durable = DurableEngine(engine: EngineHarness().engine, store: try open(directory))
            _ = try durable.start()
            _ = try durable.process([IncomingMessage(origin: .ingest, body: upsert("f", item("1")).serialized())])
            durable.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
            switch loss {
            case "empty": FileManager.default.createFile(atPath: database, contents: Data())
            case "foreign", "no store":
                // Another store; or a schema without its meta rows, as when the first frames of
                // the write-ahead log are gone.
                let other = try ScratchDirectory()
                try open(other).close()
                try FileManager.default.copyItem(atPath: other.file(SQLiteFeedStore.databaseFileName), toPath: database)
                if loss == "no store" {
                    let queue = try DatabaseQueue(path: database)
                    try queue.write { db in try db.execute(sql: "DELETE FROM meta") }
                    try queue.close()
                }
            default: break
            }
            let before = try? Data(contentsOf: URL(fileURLWithPath: database))
            let refusal = #expect(throws: StoreError.self, "\(loss)") { try open(directory) }
            #expect(refusal?.kind == .lost, "\(loss)")
            #expect(
                refusal?.message.contains(directory.file(SQLiteFeedStore.markerFileName)) == true,
                "\(loss): \(refusal?.message ?? "")")
            #expect(
                (try? Data(contentsOf: URL(fileURLWithPath: database))) == before, "\(loss): the refused file changed")

            let accepted = DurableEngine(
                engine: EngineHarness().engine,
                store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal, acceptStateLoss: true))
            _ = try accepted.start()
            accepted.close()
            // The acceptance is recorded by the start's commit: the next start needs no flag.
            let next = try open(directory)
            #expect(next.continuity == .continued, "\(loss)")
            next.close()
        }
    }

    @Test(
        "the checkpoint policy: unchanged on a roomy volume; on a small one, more often and restarting the log at the database's size"
    )
    func checkpointPolicy() {
        let roomy = WALCheckpointer.Policy.forVolume(freeBytes: 10 << 30, databasePages: 10)
        #expect(
            roomy
                == WALCheckpointer.Policy(
                    interval: WALCheckpointer.interval, restartFrames: WALCheckpointer.restartFrames))
        let small = WALCheckpointer.Policy.forVolume(freeBytes: 1 << 20, databasePages: 10)
        #expect(small.interval < WALCheckpointer.interval)
        #expect(small.restartFrames == 64)
        #expect(WALCheckpointer.Policy.forVolume(freeBytes: 1 << 20, databasePages: 1000).restartFrames == 1000)
        #expect(
            WALCheckpointer.Policy.forVolume(freeBytes: 1 << 20, databasePages: 100_000).restartFrames
                == WALCheckpointer.restartFrames)
    }

    @Test(
        "the commit's own checkpoint backstop: about 40 MB of log on a roomy volume, about 512 kB on a small one, as the store opens it"
    )
    func walBackstop() throws {
        #expect(SQLiteFeedStore.walBackstopPages(freeBytes: 10 << 30) == SQLiteFeedStore.walBackstopPages)
        #expect(SQLiteFeedStore.walBackstopPages(freeBytes: 1 << 20) == SQLiteFeedStore.smallVolumeWALBackstopPages)
        #expect(
            SQLiteFeedStore.walBackstopPages(freeBytes: WALCheckpointer.smallVolumeBytes)
                == SQLiteFeedStore.walBackstopPages)
        let directory = try ScratchDirectory()
        let path = directory.file(SQLiteFeedStore.databaseFileName)
        let queue = try SQLiteFeedStore.openDatabase(at: path, synchronous: .normal)
        let free = try #require(StateDirectory.freeBytes(in: StateDirectory.directory(of: path)))
        #expect(
            try queue.read { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") }
                == SQLiteFeedStore.walBackstopPages(freeBytes: free))
    }

    @Test("the directory of a path, whose volume's free space the store reads")
    func directoryOfPath() {
        #expect(StateDirectory.directory(of: "/var/lib/rowcast/rowcast.db") == "/var/lib/rowcast")
        #expect(StateDirectory.directory(of: "state/rowcast.db") == "state")
        #expect(StateDirectory.directory(of: "rowcast.db") == ".")
        #expect(StateDirectory.directory(of: "/rowcast.db") == "/")
        #expect(StateDirectory.freeBytes(in: StateDirectory.directory(of: "/rowcast.db")) != nil)
    }

    @Test("an older copy of the database, or a missing marker, breaks continuity")
    func olderCopy() throws {
        let directory = try ScratchDirectory()
        let database = directory.file(SQLiteFeedStore.databaseFileName)
        let backup = directory.file("backup.db")
        let harness = EngineHarness()
        let durable = DurableEngine(engine: harness.engine, store: try open(directory))
        _ = try durable.start()
        _ = try durable.process([IncomingMessage(origin: .ingest, body: upsert("f", item("1")).serialized())])
        durable.close()
        try FileManager.default.copyItem(atPath: database, toPath: backup)

        let second = EngineHarness()
        let again = DurableEngine(engine: second.engine, store: try open(directory))
        _ = try again.start()
        _ = try again.process([IncomingMessage(origin: .ingest, body: upsert("f", item("2")).serialized())])
        again.close()

        try FileManager.default.removeItem(atPath: database)
        try FileManager.default.copyItem(atPath: backup, toPath: database)
        // Refused, and left as it was, until the loss is accepted.
        let copied = try Data(contentsOf: URL(fileURLWithPath: database))
        let refusal = #expect(throws: StoreError.self) { try open(directory) }
        #expect(refusal?.kind == .lost)
        #expect(refusal?.exitStatus == 65)
        #expect(refusal?.message.contains("--accept-state-loss") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == copied)
        let restored = try SQLiteFeedStore(directory: directory.path, synchronous: .normal, acceptStateLoss: true)
        guard case .broken(let reason) = restored.continuity else {
            Issue.record("expected broken continuity, got \(restored.continuity)")
            return
        }
        #expect(reason.contains("older copy"))
        restored.close()
        // Until a start commits (with new epochs), the copy stays suspect.
        #expect(throws: StoreError.self) { try open(directory) }
        let third = DurableEngine(
            engine: EngineHarness().engine,
            store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal, acceptStateLoss: true))
        _ = try third.start()
        third.close()
        #expect(try open(directory).continuity == .continued)

        try FileManager.default.removeItem(atPath: directory.file(SQLiteFeedStore.markerFileName))
        guard case .broken = try open(directory).continuity else {
            Issue.record("a missing marker must break continuity")
            return
        }
    }

    @Test(
        "the WAL is copied into the database file while the store is open, by the checkpointer thread, not by commits")
    func backgroundCheckpoint() throws {
        let directory = try ScratchDirectory()
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product"]))
        let durable = DurableEngine(engine: harness.engine, store: try open(directory))
        _ = try durable.start()
        let databaseFile = directory.file(SQLiteFeedStore.databaseFileName)
        func databaseBytes() -> Int {
            (try? FileManager.default.attributesOfItem(atPath: databaseFile)[.size] as? Int) ?? 0
        }
        let emptySize = databaseBytes()
        let padding = String(repeating: "x", count: 1_000)
        for batch in 0..<8 {
            let messages = (0..<250).map { index in
                IncomingMessage(
                    origin: .ingest,
                    body: upsert("f", item("b\(batch)-\(index)", data: ["name": .string(padding)])).serialized())
            }
            _ = try durable.process(messages)
        }
        // 2,000 rows of 1 kB: the commits left them in the WAL (automatic checkpoints are off);
        // the checkpointer copies them within its interval.
        let deadline = ContinuousClock.now + .seconds(20)
        while databaseBytes() < emptySize + 1_500_000 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(
            databaseBytes() >= emptySize + 1_500_000,
            "the database file did not grow while open: \(emptySize) -> \(databaseBytes()) bytes")
        durable.close()
        let restarted = EngineHarness(renderer: FakeRenderer(itemTypes: ["product"]))
        let again = DurableEngine(engine: restarted.engine, store: try open(directory))
        _ = try again.start()
        #expect(restarted.engine.feeds["f"]?.itemCount == 2_000)
        again.close()
    }

    @Test("under steady commits the checkpointer restarts the WAL, so it stays far below the commit backstop")
    func walRestartsUnderSteadyCommits() throws {
        let directory = try ScratchDirectory()
        let store = try open(directory)
        let walFile = directory.file(SQLiteFeedStore.databaseFileName + "-wal")
        func walFrames() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: walFile)[.size] as? Int) ?? 0) / 4_120
        }
        // 3,000 commits of 5 rows of 3.5 kB, one page each: over 15,000 frames, about 5,000 a
        // second. Commits come 1 ms apart, so passive checkpoints never find the log entirely
        // copied; a log that only the commits' own backstop restarted reaches 10,000 frames
        // (it did, with the RESTART step taken out), against about 3,200 with it. The commits
        // run at the checkpointer's own priority: at normal priority, on a machine busy with
        // other tests, they outran the starved checkpointer and the log reached the backstop.
        let json = Array("{\"pad\":\"\(String(repeating: "x", count: 3_500))\"}".utf8)
        let writer = PrioritizedRun(niceness: WALCheckpointer.niceness) {
            var largest = 0
            var arrival: UInt64 = 0
            for batch in 0..<3_000 {
                var commit = StoreCommit()
                let items: [(id: String, item: PersistedItem?)] = (0..<5).map { index in
                    arrival += 1
                    let id = "b\(batch)-\(index)"
                    return (
                        id: id,
                        item: PersistedItem(
                            id: id, type: "product", section: "s", sort: nil, arrival: arrival, json: json)
                    )
                }
                commit.feeds = [
                    FeedChanges(
                        feed: "f", seq: UInt64(batch + 1), epoch: "e", nextArrival: arrival + 1, replacedAll: false,
                        items: items, sections: [])
                ]
                try store.commit([commit])
                largest = max(largest, walFrames())
                usleep(1_000)
            }
            return largest
        }
        let largest = try writer.result(timeout: 300)
        #expect(largest > WALCheckpointer.restartFrames / 2, "the test wrote too little to matter: \(largest) frames")
        #expect(largest < 8_000, "the WAL reached \(largest) frames (backstop \(SQLiteFeedStore.walBackstopPages))")
        store.close()
        let reopened = try open(directory)
        #expect(try reopened.feeds(named: ["f"]).first?.items.count == 15_000)
        reopened.close()
    }
}
