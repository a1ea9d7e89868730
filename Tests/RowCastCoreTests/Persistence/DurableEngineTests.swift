import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import RowCastWire
import Testing

/// A store that fails its next commits on demand, over a real SQLite store.
final class FlakyStore: FeedStore {
    let base: SQLiteFeedStore
    var failingCommits = 0
    /// How many batches each successful transaction carried, in order.
    private(set) var transactions: [Int] = []
    /// When set, each commit waits for a signal of it first (set before the commit starts).
    var gate: DispatchSemaphore?
    /// What `spaceShortage` says.
    var shortage: StoreError?
    /// The thread of each successful transaction, in order.
    private(set) var committingThreads: [pthread_t] = []

    init(_ base: SQLiteFeedStore) { self.base = base }

    func load() throws(StoreError) -> StoredState { try base.load() }
    func commit(_ commits: [StoreCommit]) throws(StoreError) {
        gate?.wait()
        if failingCommits > 0 {
            failingCommits -= 1
            throw StoreError(
                .full, path: base.databasePath,
                message: "no space left while committing to \(base.databasePath) (test).")
        }
        try base.commit(commits)
        transactions.append(commits.count)
        committingThreads.append(pthread_self())
    }
    func feeds(named names: [String]) throws(StoreError) -> [RestoredFeed] { try base.feeds(named: names) }
    func feeds(inPartitions partitions: Set<Partition>) throws(StoreError) -> [RestoredFeed] {
        try base.feeds(inPartitions: partitions)
    }
    func ledgerEntries() throws(StoreError) -> [LedgerEntry] { try base.ledgerEntries() }
    func quarantinedItems() throws(StoreError) -> [QuarantinedItem] { try base.quarantinedItems() }
    func close() { base.close() }
    func spaceShortage() -> StoreError? { shortage }
}

struct DurableEngineTests {
    func message(_ request: JSONValue, token: Int) -> IncomingMessage {
        IncomingMessage(origin: .control(replyTo: token), body: request.serialized())
    }

    func tagged(_ request: JSONValue, req: Int) -> JSONValue {
        var object = request.objectValue!
        object["client"] = "c"
        object["req"] = .number(Double(req))
        return .object(object)
    }

    @Test(
        "a snapshot left to the daemon to write (as rowcastd runs) in a batch whose commit fails is refused with storage_error too"
    )
    func failedCommitRefusesLaterSnapshots() throws {
        let directory = try ScratchDirectory()
        let harness = EngineHarness()
        harness.engine.writesSnapshotsLater = true
        let store = FlakyStore(try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        let durable = DurableEngine(engine: harness.engine, store: store)
        _ = try durable.start()
        store.failingCommits = 1
        let failed = try durable.process([
            message(tagged(upsert("f", item("1")), req: 1), token: 1),
            message(["op": "snapshot", "feed": "f", "req": "s"], token: 2),
        ])
        #expect(failed.snapshots.isEmpty)
        #expect(failed.replies.map(\.token) == [1, 2])
        let snapshot = try JSONParser.parse(failed.replies[1].body)
        #expect(snapshot["error"]?["code"] == "storage_error")
        #expect(snapshot["op"] == "snapshot")
        #expect(snapshot["req"] == "s")
        durable.close()
    }

    @Test("a failed commit refuses the whole batch with storage_error, publishes nothing and rolls back")
    func failedCommit() throws {
        let directory = try ScratchDirectory()
        let harness = EngineHarness()
        let store = FlakyStore(try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        let durable = DurableEngine(engine: harness.engine, store: store)
        _ = try durable.start()
        _ = try durable.process([message(tagged(upsert("f", item("1")), req: 1), token: 1)])
        let before = harness.snapshot("f")

        store.failingCommits = 1
        let failed = try durable.process([
            message(tagged(upsert("f", item("1", data: ["name": "changed"])), req: 2), token: 2),
            message(tagged(["op": "delete", "feed": "f", "id": "1"], req: 3), token: 3),
            message(tagged(upsert("g", item("new")), req: 4), token: 4),
            message(["op": "snapshot", "feed": "f", "req": "s"], token: 5),
        ])
        #expect(failed.publications.isEmpty)
        #expect(failed.replies.map(\.token) == [2, 3, 4, 5])
        for reply in failed.replies {
            let body = try JSONParser.parse(reply.body)
            #expect(body["ok"] == false)
            #expect(body["error"]?["code"] == "storage_error")
            #expect(body["error"]?["message"]?.stringValue?.contains(store.base.databasePath) == true)
        }
        #expect(try JSONParser.parse(failed.replies[0].body)["req"] == 2)
        #expect(try JSONParser.parse(failed.replies[3].body)["op"] == "snapshot")
        #expect(harness.snapshot("f") == before)
        #expect(harness.engine.feeds["g"] == nil)
        #expect(harness.engine.ledger.answer(LedgerKey(client: "c", req: "2")) == nil)

        // The same requests sent again apply normally, from the committed state.
        let retried = try durable.process([
            message(tagged(upsert("f", item("1", data: ["name": "changed"])), req: 2), token: 6)
        ])
        #expect(try JSONParser.parse(retried.replies[0].body)["seq"] == 2)
        #expect(retried.publications.count == 1)
        durable.close()
    }

    @Test(
        "after a commit fails on a full disk, writes are refused at once while the disk has no room, queries answered; with room again they apply"
    )
    func fullDiskRefusesWritesAtOnce() throws {
        let directory = try ScratchDirectory()
        let harness = EngineHarness()
        let store = FlakyStore(try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        let durable = DurableEngine(engine: harness.engine, store: store)
        _ = try durable.start()
        _ = try durable.process([message(upsert("f", item("1")), token: 1)])
        let full = StoreError(.full, path: store.base.databasePath, message: "the disk is full (test).")
        store.failingCommits = 1
        store.shortage = full
        let failed = try durable.process([message(upsert("f", item("2")), token: 2)])
        #expect(try JSONParser.parse(failed.replies[0].body)["error"]?["code"] == "storage_error")
        let committed = store.transactions.count

        let refused = try durable.process([
            message(tagged(upsert("f", item("3")), req: 3), token: 3),
            message(["op": "snapshot", "feed": "f"], token: 4),
            message(tagged(["op": "delete", "feed": "f", "id": "1"], req: 5), token: 5),
        ])
        let replies = try refused.replies.sorted { $0.token < $1.token }.map { try JSONParser.parse($0.body) }
        #expect(replies[0]["error"]?["code"] == "storage_error")
        #expect(replies[0]["error"]?["message"]?.stringValue?.contains("refused without trying to commit") == true)
        #expect(replies[0]["req"] == 3)
        #expect(replies[2]["error"]?["code"] == "storage_error")
        #expect(store.transactions.count == committed, "a refused batch was committed")
        #expect(refused.publications.isEmpty)
        #expect(harness.snapshot("f")["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.count == 1)

        store.shortage = nil
        let applied = try durable.process([message(tagged(upsert("f", item("3")), req: 3), token: 6)])
        #expect(try JSONParser.parse(applied.replies[0].body)["ok"] == true)
        durable.close()
    }

    @Test("a rollback restores the committed rows as stored, rendering none of them again")
    func rollbackKeepsRows() throws {
        let directory = try ScratchDirectory()
        let harness = EngineHarness()
        let store = FlakyStore(try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        let durable = DurableEngine(engine: harness.engine, store: store)
        _ = try durable.start()
        _ = try durable.process((1...20).map { message(upsert("f", item("\($0)")), token: $0) })
        let before = harness.snapshot("f")
        store.failingCommits = 1
        let renders = harness.renderer.renderCalls
        _ = try durable.process([message(upsert("f", item("1", data: ["name": "changed"])), token: 30)])
        // The changed item only: the rollback restores the committed rows as stored.
        #expect(harness.renderer.renderCalls - renders == 1)
        #expect(harness.snapshot("f") == before)
        durable.close()
    }

    @Test(
        "a start calls no plugin; rows whose renderer changed while stopped are served, then rendered again in the background, keeping the epoch"
    )
    func rendererChanged() throws {
        let directory = try ScratchDirectory()
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"]))
        let durable = DurableEngine(
            engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try durable.start()
        _ = try durable.process(
            (1...300).map { message(upsert("f", item("\($0)")), token: $0) } + [
                message(upsert("g", item("2", type: "ad")), token: 301)
            ])
        durable.close()
        func open(_ harness: EngineHarness) throws -> DurableEngine {
            DurableEngine(
                engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal),
                makeEpoch: { "new" })
        }

        // Same renderer: no plugin call at all.
        let restarted = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"]))
        let again = try open(restarted)
        _ = try again.start()
        #expect(restarted.renderer.renderCalls == 0)
        #expect(!again.hasStaleRenders)
        #expect(restarted.snapshot("f") == harness.snapshot("f"))
        again.close()

        // Another renderer generation: the stored rows are served as they were (same epoch
        // and seq), and rendered again chunk by chunk, each chunk committed.
        let third = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"], generation: 2))
        let durable3 = try open(third)
        _ = try durable3.start()
        #expect(third.renderer.renderCalls == 0)
        #expect(third.snapshot("f") == harness.snapshot("f"))
        #expect(third.engine.staleRenders.count == 301)
        var chunks = 0
        while durable3.hasStaleRenders {
            durable3.submitStaleRender()
            _ = try durable3.flush()
            chunks += 1
        }
        #expect(chunks == 3, "301 items in chunks of 128, feed by feed: the last one ends f and holds g's item")
        #expect(third.renderer.renderCalls == 301)
        #expect(third.snapshot("f")["epoch"] == harness.snapshot("f")["epoch"])
        durable3.close()

        // The new renderer was recorded once every row was rendered again: no call now.
        let fourth = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"], generation: 2))
        let durable4 = try open(fourth)
        _ = try durable4.start()
        #expect(fourth.renderer.renderCalls == 0)
        #expect(!durable4.hasStaleRenders)
        #expect(fourth.snapshot("f") == third.snapshot("f"))
        durable4.close()
    }

    @Test("a stop before the stale rows are all rendered again leaves the rest stale for the next start")
    func staleRowsSurviveStop() throws {
        let directory = try ScratchDirectory()
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product"]))
        let durable = DurableEngine(
            engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try durable.start()
        _ = try durable.process((1...200).map { message(upsert("f", item("\($0)")), token: $0) })
        durable.close()

        let second = EngineHarness(renderer: FakeRenderer(itemTypes: ["product"], generation: 2))
        let durable2 = DurableEngine(
            engine: second.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try durable2.start()
        durable2.submitStaleRender()
        _ = try durable2.flush()
        // A new item of the stale type meanwhile must not record the new renderer.
        _ = try durable2.process([message(upsert("f", item("new")), token: 1)])
        #expect(second.renderer.renderCalls == 129)
        durable2.close()

        let third = EngineHarness(renderer: FakeRenderer(itemTypes: ["product"], generation: 2))
        let durable3 = DurableEngine(
            engine: third.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try durable3.start()
        #expect(third.renderer.renderCalls == 0)
        #expect(third.engine.staleRenders.count == 201)
        durable3.close()
    }

    @Test("a plugin reload commits the new seq before its deltas go out")
    func reloadCommitsSeq() throws {
        let directory = try ScratchDirectory()
        let renderer = FakeRenderer(itemTypes: ["product"])
        let harness = EngineHarness(renderer: renderer)
        let durable = DurableEngine(
            engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try durable.start()
        _ = try durable.process([
            message(upsert("f", item("1")), token: 1), message(upsert("f", item("2", type: "ad")), token: 2),
        ])
        let publications = durable.replaceRenderer(FakeRenderer(itemTypes: ["product", "ad"]))
        #expect(publications.contains { $0.topic == Topic.rows("f") })
        let seq = harness.snapshot("f")["seq"]
        #expect(seq == 2)
        durable.close()

        let restarted = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"]))
        let again = DurableEngine(
            engine: restarted.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try again.start()
        #expect(restarted.snapshot("f") == harness.snapshot("f"))
        again.close()
    }
}
