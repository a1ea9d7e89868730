import RowCastWire
import RowCastPluginHosting

/// The pipelined path the daemon uses: the loop thread applies batches to the engine while
/// the commit thread writes the batches before them.
///
/// - `submit` applies a batch at once and keeps its output back;
/// - `startCommit` hands every kept batch to the commit thread, as one transaction;
/// - `collectCommitted` waits for that transaction and returns the outputs it released, in
///   order, then starts the next one with what was submitted meanwhile.
///
/// So the commit of batch k overlaps the work on batch k+1, and under load one transaction
/// carries every batch that arrived while the previous one was written (group commit), while
/// a lone request is committed at once. Nothing of a batch goes out before its commit: a query
/// answered from state that includes uncommitted batches is released with them.
///
/// When a commit fails, the batches it carried and every batch submitted after them (applied
/// on top of the failed state) are refused with `storage_error`, nothing of them is published,
/// and the engine is rolled back to the committed state.
extension DurableEngine {
    /// A batch applied to the engine, waiting for its commit before its output may go out.
    struct UncommittedBatch {
        var output: EngineOutput
        var commit: StoreCommit
        var messageCount: Int
    }

    /// Batches that add up to this many messages are committed without pacing
    /// (`CommitSchedule.pacedMessageLimit`).
    static let pacedMessageLimit = CommitSchedule.pacedMessageLimit

    /// The most messages a commit waits to gather while more ingest is waiting
    /// (`CommitSchedule.groupedMessageLimit`).
    public static let groupedMessageLimit = CommitSchedule.groupedMessageLimit

    /// Whether the submitted batches wait for the next one before their commit starts
    /// (`CommitSchedule.holdsForBacklog`, with `ingestBacklog`).
    public var holdsForBacklog: Bool {
        guard ingestBacklog, !writer.isBusy, !submitted.isEmpty else { return false }
        return CommitSchedule.holdsForBacklog(submitted.pending, backlog: ingestBacklog)
    }

    /// Whether a client waits for something of `output`: a reply, a deferred request or a snapshot.
    static func waitsForClient(_ output: EngineOutput) -> Bool {
        !output.replies.isEmpty || !output.deferred.isEmpty || !output.snapshots.isEmpty
    }

    /// Applies `messages` to the engine now, waiting for the renderer as needed (`begin` and
    /// `resume` do the same without waiting); their output comes back from `collectCommitted`
    /// (or `flush`) once committed, with `receipt`. Returns whether the batch deferred
    /// requests to the caller (a `reload`): then `flush` before anything else, so the reload
    /// happens in order.
    public func submit(_ messages: [IncomingMessage], receipt: BatchReceipt? = nil) -> Bool {
        begin(messages, receipt: receipt)
        guard case .applied(let deferring) = resume(waiting: true) else {
            preconditionFailure("DurableEngine.submit: a batch that waited for nothing did not finish")
        }
        return deferring
    }

    /// How far a begun batch got.
    public enum Submission: Equatable {
        /// Applied and kept back for its commit, as `submit` does; `deferring` as `submit` returns.
        case applied(deferring: Bool)
        /// Waiting for the renderer: wait on `renderWait`, then `resume`.
        case rendering
    }

    /// Begins applying `messages` (see `Engine.beginBatch`); `resume` applies them.
    public func begin(_ messages: [IncomingMessage], receipt: BatchReceipt? = nil) {
        checkSpace()
        engine.beginBatch(messages)
        beganBatch = (receipt, messages.count)
    }

    /// Applies what it can of the begun batch: without `waiting`, it stops at the first
    /// message whose rows have not arrived (`.rendering`). Once the batch is applied, its
    /// output is kept back for its commit, as with `submit`.
    public func resume(waiting: Bool = false) -> Submission {
        guard var output = engine.advanceBatch(waiting: waiting) else { return .rendering }
        guard let began = beganBatch else { preconditionFailure("DurableEngine.resume: no batch was begun") }
        beganBatch = nil
        output.receipt = began.receipt
        submitted.append(UncommittedBatch(output: output, commit: takeCommit(), messageCount: began.messageCount))
        return .applied(deferring: !output.deferred.isEmpty)
    }

    /// Ends the begun batch with what it applied (`Engine.parkBatch`): that part is kept back
    /// for its commit, as `resume` does with a whole batch (nothing, when it applied nothing),
    /// and the rest is carried into the next batch. Returns the reply tokens of the carried
    /// control requests, in order (the caller puts their routes first in the next batch's
    /// receipt: the k-th gets token k), and whether the applied part deferred a request (a
    /// `reload`), as `resume` does: then apply the carried messages and `flush` first.
    public func park() -> (parked: [Int], deferring: Bool) {
        guard let began = beganBatch else { preconditionFailure("DurableEngine.park: no batch was begun") }
        beganBatch = nil
        var (output, applied, parked) = engine.parkBatch()
        guard applied > 0 else { return (parked, false) }
        output.receipt = began.receipt
        submitted.append(UncommittedBatch(output: output, commit: takeCommit(), messageCount: applied))
        return (parked, !output.deferred.isEmpty)
    }

    /// Whether the begun batch waits on its own messages' rows (`Engine.waitsOnOwnRows`).
    public var waitsOnOwnRows: Bool { engine.waitsOnOwnRows }

    /// Whether messages of a parked batch wait for the next one (`Engine.hasCarriedMessages`).
    public var hasCarriedMessages: Bool { engine.hasCarriedMessages }

    /// Whether a batch begun now would apply a carried message (`Engine.carriedCanAdvance`).
    public var carriedCanAdvance: Bool { engine.carriedCanAdvance }

    /// What the carried messages wait on (`Engine.carriedWait`).
    public var carriedWait: RenderWait? { engine.carriedWait }

    /// How many carried messages are control requests (`Engine.carriedReplyCount`).
    public var carriedReplyCount: Int { engine.carriedReplyCount }

    /// Whether rows restored stale wait to be rendered again (`submitStaleRender`).
    public var hasStaleRenders: Bool { engine.hasStaleRenders }

    /// Renders the next chunk of rows restored stale (`Engine.renderStaleChunk`) and keeps its
    /// output back for its commit, as a batch of no message: the rows are stored before their
    /// delta goes out. Only between batches (none begun and not applied).
    public func submitStaleRender() {
        precondition(beganBatch == nil, "DurableEngine.submitStaleRender while a batch is begun")
        precondition(!engine.hasCarriedMessages, "DurableEngine.submitStaleRender while messages are carried")
        var output = engine.renderStaleChunk()
        output.receipt = BatchReceipt(receivedAt: .now, replyRoutes: [])
        var commit = takeCommit()
        recordRefreshedTypes(into: &commit)
        submitted.append(UncommittedBatch(output: output, commit: commit, messageCount: 0))
    }

    /// After a commit failed for lack of space: asks the store whether the disk has room again
    /// (`FeedStore.spaceShortage`, a look at the file system), and refuses writes at once
    /// while it has not (`Engine.refusedWrites`), instead of applying each batch, failing its
    /// commit and rolling it back.
    func checkSpace() {
        if pendingRollBack != nil { retryRollBack() }
        guard diskFull != nil, pendingRollBack == nil else { return }
        if let shortage = store.spaceShortage() {
            engine.refusedWrites = RowCastError(
                .storageError,
                "refused without trying to commit: \(shortage.message) Nothing of the request was applied; send it again later."
            )
            return
        }
        logger.notice(
            "the disk has room again; writes are tried again", metadata: ["failed": "\(diskFull?.message ?? "")"])
        diskFull = nil
        engine.refusedWrites = nil
    }

    /// Keeps a rollback that could not read the store for `retryRollBack`, and refuses writes
    /// at once until it succeeds: the engine holds changes the store never committed.
    func deferRollBack(feeds: Set<String>, renderers: [RendererRecord], error: StoreError) {
        logger.error(
            "the store cannot be reached; writes are refused with storage_error until it can",
            metadata: ["error": "\(error.message)"])
        let earlier = pendingRollBack
        pendingRollBack = (feeds.union(earlier?.feeds ?? []), (earlier?.renderers ?? []) + renderers, error)
        lastRollBackTry = .now
        refuseWrites(because: error)
    }

    /// Tries a deferred rollback again (at most once a second): once it reads the store back,
    /// writes are taken again.
    func retryRollBack() {
        guard let pending = pendingRollBack, rollBackFailure == nil else { return }
        if let last = lastRollBackTry, ContinuousClock.now - last < .seconds(1) { return }
        lastRollBackTry = .now
        do throws(StoreError) {
            try rollBack(feeds: pending.feeds.sorted(), renderers: pending.renderers)
            pendingRollBack = nil
            engine.refusedWrites = nil
            logger.notice("the store can be reached again; writes are taken again")
        } catch  where error.kind == .unavailable {
            pendingRollBack?.error = error
            refuseWrites(because: error)
        } catch {
            rollBackFailure = error
        }
    }

    private func refuseWrites(because error: StoreError) {
        engine.refusedWrites = RowCastError(
            .storageError,
            "refused without trying to commit: \(error.message) Nothing of the request was applied; send it again later."
        )
    }

    /// What the batch being applied waits on (`Engine.renderWait`), beside `waitDescriptors`.
    public var renderWait: RenderWait? { engine.renderWait }

    /// Whether a commit is being written.
    public var isCommitting: Bool { writer.isBusy }

    /// Whether outputs are held back: submitted, being committed, or released and not yet
    /// taken by `collectCommitted`.
    public var hasHeldOutputs: Bool { !submitted.isEmpty || !committing.isEmpty || !released.isEmpty }

    /// When the submitted batches are due to be committed, if that is later than now
    /// (`CommitSchedule.commitDue`). Nil when they are committed at the next
    /// `collectCommitted` (or there are none, or a commit is being written).
    public var commitDue: ContinuousClock.Instant? {
        guard !writer.isBusy, !submitted.isEmpty else { return nil }
        return schedule.commitDue(submitted.pending, now: .now)
    }

    /// Until when fire-and-forget ingest that arrives now waits unread, if it should
    /// (`CommitSchedule.ingestHeldUntil`; nil while a commit is being written).
    /// `holdIngest(until:)` arms the wake-up.
    public var ingestHeldUntil: ContinuousClock.Instant? {
        guard !writer.isBusy else { return nil }
        return schedule.ingestHeldUntil(now: .now)
    }

    /// Has `pacingDescriptor` turn readable at `instant` (an `ingestHeldUntil`), so the loop's
    /// wait ends when held ingest is to be read.
    public func holdIngest(until instant: ContinuousClock.Instant) {
        pacingTimer.arm(at: instant)
    }

    /// Starts committing every submitted batch, unless a commit is being written (then they
    /// wait for the next `collectCommitted`), they wait for the next batch (see
    /// `holdsForBacklog`) or they are not due yet (see `commitDue`; `force` commits them
    /// anyway). Batches that changed nothing durable are released
    /// without a commit when nothing before them is held.
    public func startCommit(force: Bool = false) {
        guard let commits = takeDueCommits(force: force) else { return }
        writer.start(commits)
    }

    /// What `startCommit` would hand to the commit thread, with `committing` and the schedule
    /// set as for a commit that starts now; nil when nothing is to be committed now.
    private func takeDueCommits(force: Bool) -> [StoreCommit]? {
        guard !writer.isBusy, !submitted.isEmpty else { return nil }
        if !force, holdsForBacklog { return nil }
        if !force, let due = commitDue {
            pacingTimer.arm(at: due)
            return nil
        }
        let commits = submitted.map(\.commit).filter { !$0.isEmpty }
        if commits.isEmpty {
            released += submitted.map(\.output)
            submitted = []
            return nil
        }
        committing = submitted
        submitted = []
        schedule.commitStarted(at: .now, carrying: committing.pending)
        return commits
    }

    /// Waits for the commit being written, if any, and returns the outputs released since the
    /// last call, in order (refusals when the commit failed); then starts committing what was
    /// submitted meanwhile. Throws only when the engine cannot be brought back in line with
    /// the store (the daemon must stop).
    ///
    /// `writingHere`: the caller would only wait for the commit this starts (the loop without
    /// a backlog). Then, when commits are sparse (`CommitSchedule.writesHere`), it is written
    /// on the calling thread at once and its outputs are returned too: at a trickle that saves
    /// the hand-off to the commit thread and back, and the loop's pass between them.
    public func collectCommitted(force: Bool = false, writingHere: Bool = false) throws(StoreError) -> [EngineOutput] {
        if let failure = rollBackFailure { throw failure }
        if writer.isBusy {
            let batches = committing
            committing = []
            try settle(batches, writer.wait())
        }
        if writingHere, schedule.writesHere(at: .now) {
            if let commits = takeDueCommits(force: force) {
                let batches = committing
                committing = []
                try settle(batches, writer.writeHere(commits))
            }
        } else {
            startCommit(force: force)
        }
        defer { released = [] }
        return released
    }

    /// Takes the outcome of the commit of `batches`: their outputs are released, or, when it
    /// failed, they and every batch submitted after them are refused and the engine is rolled
    /// back to the store.
    private func settle(_ batches: [UncommittedBatch], _ outcome: Result<Void, StoreError>) throws(StoreError) {
        schedule.commitEnded(taking: writer.lastDuration)
        switch outcome {
        case .success:
            commitObserver?(writer.lastDuration, batches.messageCount)
            released += batches.map(\.output)
        case .failure(let error):
            let refused = batches + submitted
            submitted = []
            logger.error(
                "commit failed; its batches and those applied after them are refused with storage_error",
                metadata: [
                    "error": "\(error.message)", "batches": "\(refused.count)",
                    "replies": "\(refused.reduce(0) { $0 + $1.output.replies.count })",
                ])
            if error.kind == .full { diskFull = error }
            let feeds = Set(refused.flatMap { $0.commit.feeds.map(\.feed) + $0.commit.droppedFeeds })
            let renderers = refused.flatMap(\.commit.renderers)
            do throws(StoreError) {
                try rollBack(feeds: feeds.sorted(), renderers: renderers)
            } catch  where error.kind == .unavailable {
                deferRollBack(feeds: feeds, renderers: renderers, error: error)
                // Until the store's answers can be read back, none of the refused batches'
                // is given: a retry is refused (or applied once the store is back).
                for entry in refused.flatMap(\.commit.ledger.recorded) { engine.ledger.discard(entry.key) }
            }
            engine.actionEvents.rollBack(refused.flatMap(\.commit.events))
            released += refused.map { Self.refusal(of: $0.output, error: error) }
        }
    }

    /// As `collectCommitted`, but without waiting for a commit that is still being written
    /// while fewer than `groupedMessageLimit` messages were applied after it (then it returns
    /// what was released meanwhile, often nothing). Under a backlog the loop goes on with the
    /// next batch instead of waiting: with batches of 1,024 and commits of up to 4,096
    /// messages, waiting for each commit left the loop idle for part of every commit. The
    /// limit keeps the loop from running further ahead of a slow disk than one commit's
    /// worth. A finished commit, failed or not, is taken as `collectCommitted` takes it.
    public func collectFinished() throws(StoreError) -> [EngineOutput] {
        guard writer.isBusy, !writer.hasFinished,
            submitted.messageCount < Self.groupedMessageLimit
        else { return try collectCommitted() }
        defer { released = [] }
        return released
    }

    /// Readable when the commit being written has finished, or when held-back batches are due
    /// to be committed (see `advanceWhileWaiting`, which makes both unreadable again, also when
    /// it leaves a failed commit for `collectCommitted`).
    public var waitDescriptors: [Int32] { [writer.finishedDescriptor, pacingTimer.descriptor] }

    /// Readable once held-back batches are due to be committed (`commitDue`), until
    /// `takePacingExpiry()`: the loop's own wait watches it, so a trickle's commit starts when
    /// it is due rather than when a wait counted in whole milliseconds ends.
    public var pacingDescriptor: Int32 { pacingTimer.descriptor }

    /// Makes `pacingDescriptor` unreadable until the next held-back commit is due (the commit
    /// itself starts in the next `collectCommitted`).
    public func takePacingExpiry() {
        pacingTimer.clear()
    }

    /// Without waiting: takes the commit being written if it finished and succeeded, starts
    /// the next one if it is due, and returns the outputs released since the last call, in
    /// order (often none). A failed commit is left for `collectCommitted`, which rolls back.
    ///
    /// Safe while a batch is begun and not yet applied (`begin`, `resume`): the batches it
    /// commits or releases were all applied before it, and it does not touch the engine.
    public func advanceWhileWaiting() -> [EngineOutput] {
        pacingTimer.clear()
        if writer.isBusy {
            guard writer.takeIfSucceeded() else { return [] }
            schedule.commitEnded(taking: writer.lastDuration)
            commitObserver?(writer.lastDuration, committing.messageCount)
            released += committing.map(\.output)
            committing = []
        }
        startCommit()
        defer { released = [] }
        return released
    }

    /// Commits everything submitted and returns every output still held back, in order,
    /// waiting as long as it takes. The store is idle when it returns.
    public func flush() throws(StoreError) -> [EngineOutput] {
        var outputs: [EngineOutput] = []
        repeat {
            outputs += try collectCommitted(force: true)
        } while hasHeldOutputs
        return outputs
    }
}

extension Array where Element == DurableEngine.UncommittedBatch {
    /// How many messages the batches carry together.
    var messageCount: Int { reduce(0) { $0 + $1.messageCount } }

    /// The batches as the commit schedule sees them.
    var pending: CommitSchedule.Pending {
        CommitSchedule.Pending(messages: messageCount, waitedOn: contains { DurableEngine.waitsForClient($0.output) })
    }
}
