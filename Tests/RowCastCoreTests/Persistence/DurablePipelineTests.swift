import Foundation
@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastJSON
import Testing

/// The pipelined path the daemon uses (`submit`, `collectCommitted`, `flush`), over a real
/// SQLite store written by the commit thread.
struct DurablePipelineTests {
    func message(_ request: JSONValue, req: Int) -> IncomingMessage {
        var object = request.objectValue!
        object["client"] = "c"
        object["req"] = .number(Double(req))
        return IncomingMessage(origin: .control(replyTo: req), body: JSONValue.object(object).serialized())
    }

    /// A started durable engine over a real store in `directory`, wrapped to count and fail
    /// commits; `configure` runs before the start.
    func pipeline(
        in directory: ScratchDirectory, configure: (DurableEngine) -> Void = { _ in }
    ) throws -> (EngineHarness, FlakyStore, DurableEngine) {
        let harness = EngineHarness()
        let store = FlakyStore(try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        let durable = DurableEngine(engine: harness.engine, store: store)
        configure(durable)
        _ = try durable.start()
        return (harness, store, durable)
    }

    func reply(_ output: EngineOutput) throws -> JSONValue {
        try JSONParser.parse(output.replies[0].body)
    }

    @Test("outputs come back in order once committed; batches submitted during a commit share the next transaction")
    func groupCommit() throws {
        let directory = try ScratchDirectory()
        let (harness, store, durable) = try pipeline(in: directory)

        #expect(durable.submit([message(upsert("f", item("1")), req: 1)]) == false)
        #expect(try durable.collectCommitted().isEmpty, "nothing is released before its commit")
        #expect(durable.isCommitting)
        _ = durable.submit([message(upsert("f", item("2")), req: 2)])
        _ = durable.submit([message(upsert("f", item("3")), req: 3)])
        _ = durable.submit([message(["op": "snapshot", "feed": "f"], req: 4)])
        let first = try durable.collectCommitted()
        #expect(first.count == 1)
        #expect(try reply(first[0])["seq"] == 1)
        #expect(durable.isCommitting, "the batches submitted meanwhile are being committed")
        let rest = try durable.flush()
        #expect(rest.count == 3)
        #expect(try reply(rest[0])["seq"] == 2)
        #expect(try reply(rest[1])["seq"] == 3)
        #expect(
            try reply(rest[2])["seq"] == 3,
            "the query answered from uncommitted state was held until that state was committed")
        #expect(!durable.hasHeldOutputs)
        // The start, then the lone batch, then the two batches submitted during its commit
        // (the query batch changed nothing durable).
        #expect(store.transactions == [1, 1, 2])
        durable.close()

        let restarted = EngineHarness()
        let again = DurableEngine(
            engine: restarted.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
        _ = try again.start()
        #expect(restarted.snapshot("f") == harness.snapshot("f"))
        again.close()
    }

    @Test("a failed commit refuses its batches and those applied after them, publishes nothing and rolls back")
    func failedGroup() throws {
        let directory = try ScratchDirectory()
        let (harness, store, durable) = try pipeline(in: directory)
        _ = durable.submit([message(upsert("f", item("1")), req: 1)])
        #expect(try durable.flush().count == 1)
        let committed = harness.snapshot("f")

        store.failingCommits = 1
        _ = durable.submit([message(upsert("f", item("2")), req: 2)])
        _ = try durable.collectCommitted()
        _ = durable.submit([
            message(["op": "delete", "feed": "f", "id": "1"], req: 3), message(upsert("g", item("3")), req: 4),
        ])
        let outputs = try durable.flush()
        #expect(outputs.count == 2)
        #expect(outputs.allSatisfy { $0.publications.isEmpty })
        let replies = try outputs.flatMap(\.replies).map { try JSONParser.parse($0.body) }
        #expect(replies.map { $0["req"] } == [2, 3, 4])
        #expect(replies.allSatisfy { $0["error"]?["code"] == "storage_error" })
        #expect(harness.snapshot("f") == committed)
        #expect(harness.engine.feeds["g"] == nil)

        // The same requests again apply on the committed state.
        _ = durable.submit([message(upsert("f", item("2")), req: 2)])
        let retried = try durable.flush()
        #expect(try reply(retried[0])["seq"] == 2)
        durable.close()
    }

    @Test(
        "a sparse commit the loop would only wait for is written on the calling thread and released at once; a failed one is refused at once"
    )
    func sparseCommitWrittenHere() throws {
        let directory = try ScratchDirectory()
        let (harness, store, durable) = try pipeline(in: directory)
        _ = durable.submit([message(upsert("f", item("1")), req: 1)])
        let released = try durable.collectCommitted(writingHere: true)
        #expect(released.count == 1, "committed and released in the same call")
        #expect(try reply(released[0])["seq"] == 1)
        #expect(!durable.isCommitting && !durable.hasHeldOutputs)
        #expect(store.committingThreads.last == pthread_self(), "written on the calling thread")
        #expect(store.transactions.last == 1)
        #expect(harness.engine.feeds["f"]?.seq == 1)

        // Without `writingHere` the commit thread writes it, as before.
        _ = durable.submit([message(upsert("f", item("2")), req: 2)])
        #expect(try durable.collectCommitted().isEmpty)
        #expect(durable.isCommitting)
        #expect(try durable.flush().count == 1)
        #expect(store.committingThreads.last != pthread_self(), "written on the commit thread")

        // A failure written here is taken as the commit thread's: refused, rolled back.
        durable.close()
        let (again, flaky, reopened) = try pipeline(in: directory)
        flaky.failingCommits = 1
        _ = reopened.submit([message(upsert("f", item("3")), req: 3)])
        let refused = try reopened.collectCommitted(writingHere: true)
        #expect(refused.count == 1 && refused[0].publications.isEmpty)
        #expect(try reply(refused[0])["error"]?["code"] == "storage_error")
        #expect(!reopened.isCommitting)
        #expect(again.engine.feeds["f"]?.seq == 2, "rolled back to the committed state")
        reopened.close()
    }

    /// Whether `descriptor` becomes readable within `milliseconds`.
    static func readable(_ descriptor: Int32, within milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) == 1
    }

    @Test(
        "a finished commit is taken without waiting once its descriptor is readable; a failed one is left for collectCommitted"
    )
    func finishedCommitWithoutWaiting() throws {
        let directory = try ScratchDirectory()
        let (_, store, durable) = try pipeline(in: directory)
        #expect(durable.advanceWhileWaiting().isEmpty, "nothing is being committed")

        _ = durable.submit([message(upsert("f", item("1")), req: 1)])
        #expect(try durable.collectCommitted().isEmpty)
        #expect(durable.isCommitting)
        _ = durable.submit([message(upsert("f", item("2")), req: 2)])
        #expect(Self.readable(durable.waitDescriptors[0], within: 10_000))
        let first = durable.advanceWhileWaiting()
        #expect(first.count == 1)
        #expect(try reply(first[0])["seq"] == 1)
        // Not checked here that the descriptor is unreadable: the next commit, started by the
        // call, may already have returned and signalled it (it did under ASan in CI). The
        // failure case below starts no commit, and checks it.
        #expect(durable.isCommitting, "the batch submitted meanwhile went to the next commit")
        let second = try durable.flush()
        #expect(try second.map { try reply($0)["seq"] } == [2])

        store.failingCommits = 1
        _ = durable.submit([message(upsert("f", item("3")), req: 3)])
        #expect(try durable.collectCommitted().isEmpty)
        #expect(Self.readable(durable.waitDescriptors[0], within: 10_000))
        #expect(durable.advanceWhileWaiting().isEmpty, "a failure is not taken here")
        #expect(!Self.readable(durable.waitDescriptors[0], within: 0))
        #expect(durable.isCommitting)
        let refused = try durable.collectCommitted()
        #expect(try refused.map { try reply($0)["error"]?["code"] } == ["storage_error"])
        durable.close()
    }

    /// A pipeline with a commit interval of 50 ms, one ingest batch committed, and a second
    /// one submitted within the interval, so held back.
    func heldBackIngest(in directory: ScratchDirectory) throws -> (FlakyStore, DurableEngine) {
        let (_, store, durable) = try pipeline(in: directory) { $0.ingestCommitInterval = .milliseconds(50) }
        let ingest = { (id: String) in [IncomingMessage(origin: .ingest, body: upsert("f", item(id)).serialized())] }
        _ = durable.submit(ingest("1"))
        #expect(try durable.flush().count == 1)
        _ = durable.submit(ingest("2"))
        #expect(try durable.collectCommitted().isEmpty)
        #expect(durable.commitDue != nil, "held back")
        return (store, durable)
    }

    @Test("a commit held back by the interval is started by advanceWhileWaiting once its timer descriptor is readable")
    func pacedCommitStartedWhileWaiting() throws {
        let directory = try ScratchDirectory()
        let (store, durable) = try heldBackIngest(in: directory)
        #expect(!durable.isCommitting)
        #expect(Self.readable(durable.waitDescriptors[1], within: 10_000), "the timer fires when the commit is due")
        #expect(durable.advanceWhileWaiting().isEmpty)
        #expect(durable.isCommitting, "the held batch is being committed")
        #expect(!Self.readable(durable.waitDescriptors[1], within: 0))
        #expect(Self.readable(durable.waitDescriptors[0], within: 10_000))
        #expect(durable.advanceWhileWaiting().count == 1)
        #expect(!durable.hasHeldOutputs)
        #expect(store.transactions == [1, 1, 1])
        durable.close()
    }

    @Test(
        "the loop's own wait: the pacing descriptor turns readable when a held commit is due, stays so until its expiry is taken, and the next collectCommitted starts the commit"
    )
    func pacingDescriptorInTheLoopsWait() throws {
        let directory = try ScratchDirectory()
        let (store, durable) = try heldBackIngest(in: directory)
        #expect(!Self.readable(durable.pacingDescriptor, within: 0), "not due yet")
        durable.takePacingExpiry()  // before the expiry: nothing to take, the timer stays armed
        #expect(Self.readable(durable.pacingDescriptor, within: 10_000), "readable when the commit is due")
        #expect(Self.readable(durable.pacingDescriptor, within: 0), "and stays readable")
        durable.takePacingExpiry()
        #expect(!Self.readable(durable.pacingDescriptor, within: 0), "until its expiry is taken")
        #expect(durable.commitDue == nil, "due now")
        #expect(try durable.collectCommitted().isEmpty)
        #expect(durable.isCommitting, "the held batch is being committed")
        #expect(try durable.flush().count == 1)
        #expect(store.transactions == [1, 1, 1], "the start's, then one per batch")
        durable.close()
    }

    @Test(
        "after a commit of three ingest messages or more, ingest waits unread until a fifth of the interval before the next commit is due; not while a commit is written, after a commit of fewer or of a request, or without pacing"
    )
    func ingestHeldBetweenPacedCommits() throws {
        let directory = try ScratchDirectory()
        let (_, _, durable) = try pipeline(in: directory) { $0.ingestCommitInterval = .milliseconds(100) }
        let ingest = { (id: String) in [IncomingMessage(origin: .ingest, body: upsert("f", item(id)).serialized())] }
        #expect(durable.ingestHeldUntil == nil, "nothing committed yet: read at once")

        _ = durable.submit(ingest("0") + ingest("0b"))
        #expect(try durable.flush().count == 1)
        #expect(durable.ingestHeldUntil == nil, "a commit of two messages: a trickle too slow to gather")

        _ = durable.submit(ingest("1") + ingest("1b") + ingest("1c"))
        #expect(try durable.collectCommitted(force: true).isEmpty)
        #expect(durable.isCommitting)
        #expect(durable.ingestHeldUntil == nil, "not while a commit is written: the loop reads on")
        #expect(try durable.collectCommitted().count == 1)
        let started = try #require(durable.lastCommitStart)
        if ContinuousClock.now < started + .milliseconds(80) {
            #expect(durable.ingestHeldUntil == started + .milliseconds(80))
        }

        // The wake-up: the pacing descriptor turns readable at that instant.
        let readAt = ContinuousClock.now + .milliseconds(30)
        durable.holdIngest(until: readAt)
        #expect(Self.readable(durable.pacingDescriptor, within: 10_000))
        #expect(ContinuousClock.now >= readAt)
        durable.takePacingExpiry()
        #expect(!Self.readable(durable.pacingDescriptor, within: 0))
        while ContinuousClock.now < started + .milliseconds(80) { Thread.sleep(forTimeInterval: 0.005) }
        #expect(durable.ingestHeldUntil == nil, "read at once from then on")

        // A commit that carried a request (its client waited) holds nothing back.
        _ = durable.submit([message(upsert("f", item("2")), req: 2)])
        #expect(try durable.flush().count == 1)
        #expect(durable.ingestHeldUntil == nil)

        // Nor does one of ingest without pacing.
        durable.ingestCommitInterval = .zero
        _ = durable.submit(ingest("3") + ingest("3b") + ingest("3c"))
        #expect(try durable.flush().count == 1)
        #expect(durable.ingestHeldUntil == nil)
        durable.ingestCommitInterval = .seconds(10)
        #expect(durable.ingestHeldUntil != nil, "the same commit, paced")
        durable.close()
    }

    @Test(
        "ingest-only batches wait for the commit interval and then share one commit; a control request is committed at once"
    )
    func pacedIngest() throws {
        let directory = try ScratchDirectory()
        let (harness, store, durable) = try pipeline(in: directory) { $0.ingestCommitInterval = .seconds(1) }
        func ingest(_ id: String) -> [IncomingMessage] {
            [IncomingMessage(origin: .ingest, body: upsert("f", item(id)).serialized())]
        }

        _ = durable.submit(ingest("1"))
        #expect(durable.commitDue == nil, "the first commit of a run is not held back")
        #expect(try durable.collectCommitted().isEmpty)
        #expect(try durable.collectCommitted().count == 1)

        _ = durable.submit(ingest("2"))
        _ = durable.submit(ingest("3"))
        let due = try #require(durable.commitDue, "ingest within the interval is held back")
        #expect(try durable.collectCommitted().isEmpty)
        #expect(!durable.isCommitting)
        #expect(store.transactions == [1, 1])

        // A control request joins the held batches and takes them along at once.
        _ = durable.submit([message(upsert("f", item("4")), req: 4)])
        #expect(durable.commitDue == nil)
        #expect(try durable.collectCommitted().isEmpty)
        #expect(durable.isCommitting)
        let released = try durable.collectCommitted()
        #expect(released.count == 3)
        #expect(try reply(released[2])["seq"] == 4)
        #expect(store.transactions == [1, 1, 3])

        // Held ingest is committed once due, or by a flush.
        _ = durable.submit(ingest("5"))
        let held = try #require(durable.commitDue)
        #expect(held > due)
        while ContinuousClock.now < held { Thread.sleep(forTimeInterval: 0.01) }
        #expect(durable.commitDue == nil)
        _ = try durable.collectCommitted()
        #expect(durable.isCommitting)
        #expect(try durable.flush().count == 1)
        _ = durable.submit(ingest("6"))
        #expect(durable.commitDue != nil)
        #expect(try durable.flush().count == 1)

        // A flood is not paced: once the held batches reach `pacedMessageLimit` messages they go.
        _ = durable.submit(ingest("7"))
        #expect(durable.commitDue != nil)
        _ = durable.submit((8..<(8 + DurableEngine.pacedMessageLimit)).flatMap { ingest("\($0)") })
        #expect(durable.commitDue == nil)
        #expect(try durable.flush().count == 2)
        #expect(store.transactions == [1, 1, 3, 1, 1, 2])
        #expect(harness.engine.feeds["f"]?.itemCount == 7 + DurableEngine.pacedMessageLimit)
        durable.close()
    }

    @Test(
        "under a backlog, ingest-only batches wait for the next batch and share its commit, up to groupedMessageLimit; a short read, a control request or a flush ends the hold"
    )
    func backlogGroupsCommits() throws {
        let directory = try ScratchDirectory()
        let (harness, store, durable) = try pipeline(in: directory)
        let started = store.transactions.count  // the start's own
        var written: [Int] { Array(store.transactions.dropFirst(started)) }
        var next = 0
        func ingest(_ count: Int) -> [IncomingMessage] {
            defer { next += count }
            return (next..<(next + count)).map {
                IncomingMessage(origin: .ingest, body: upsert("f", item("\($0)")).serialized())
            }
        }

        // A full read: held, nothing written, nothing released.
        durable.ingestBacklog = true
        _ = durable.submit(ingest(3))
        #expect(durable.holdsForBacklog)
        #expect(try durable.collectCommitted().isEmpty)
        #expect(!durable.isCommitting)
        _ = durable.submit(ingest(4))
        #expect(durable.advanceWhileWaiting().isEmpty)
        #expect(!durable.isCommitting, "advanceWhileWaiting holds them too")
        #expect(written.isEmpty)
        // The read after it came up short: both batches go in one transaction.
        durable.ingestBacklog = false
        #expect(!durable.holdsForBacklog)
        #expect(try durable.collectCommitted().isEmpty)
        #expect(durable.isCommitting)
        #expect(try durable.collectCommitted().count == 2)
        #expect(written == [2])

        // Held batches go once they carry groupedMessageLimit messages.
        durable.ingestBacklog = true
        _ = durable.submit(ingest(DurableEngine.groupedMessageLimit - 1))
        #expect(durable.holdsForBacklog)
        _ = durable.submit(ingest(1))
        #expect(!durable.holdsForBacklog)
        #expect(try durable.collectCommitted().isEmpty)
        #expect(durable.isCommitting)
        #expect(try durable.collectCommitted().count == 2)

        // A control request is never held, nor the ingest before it.
        _ = durable.submit(ingest(1))
        #expect(durable.holdsForBacklog)
        _ = durable.submit([message(upsert("f", item("control")), req: 1)])
        #expect(!durable.holdsForBacklog)
        #expect(try durable.collectCommitted().isEmpty)
        let released = try durable.collectCommitted()
        #expect(released.count == 2)
        #expect(try reply(released[1])["ok"] == true)

        // A flush commits held batches whatever the backlog.
        _ = durable.submit(ingest(2))
        #expect(durable.holdsForBacklog)
        #expect(try durable.flush().count == 1)
        #expect(written == [2, 2, 2, 1])
        #expect(harness.engine.feeds["f"]?.itemCount == next + 1)
        durable.close()
    }

    @Test(
        "under a backlog, collectFinished goes on without waiting for the commit in flight, until a commit's worth of messages waits behind it; outputs still come back in order"
    )
    func backlogDoesNotWaitForCommit() throws {
        let directory = try ScratchDirectory()
        let (harness, store, durable) = try pipeline(in: directory)
        var next = 0
        func ingest(_ count: Int) -> [IncomingMessage] {
            defer { next += count }
            return (next..<(next + count)).map {
                IncomingMessage(origin: .ingest, body: upsert("f", item("\($0)")).serialized())
            }
        }
        let started = store.transactions.count
        let gate = DispatchSemaphore(value: 0)
        store.gate = gate
        // Should a call wait for the held commit after all, this lets it go after a while;
        // the transactions then show that it waited.
        func release(after seconds: Double) {
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { gate.signal() }
        }

        _ = durable.submit(ingest(2))
        #expect(try durable.collectCommitted().isEmpty)
        #expect(durable.isCommitting, "the first commit is in flight, held by the gate")
        durable.ingestBacklog = true
        _ = durable.submit(ingest(3))
        release(after: 30)
        #expect(try durable.collectFinished().isEmpty)
        #expect(store.transactions.count == started, "collectFinished returned while the commit was still held")
        #expect(durable.isCommitting)

        // A commit's worth of messages behind it: now it waits.
        _ = durable.submit(ingest(DurableEngine.groupedMessageLimit))
        gate.signal()
        let first = try durable.collectFinished()
        #expect(first.count == 1, "the first commit, waited for")
        #expect(store.transactions.count == started + 1)

        // The rest, in order, once the gate lets the next commit through.
        gate.signal()
        durable.ingestBacklog = false
        let rest = try durable.flush()
        #expect(rest.count == 2)
        #expect(harness.engine.feeds["f"]?.itemCount == next)
        durable.close()
    }
}
