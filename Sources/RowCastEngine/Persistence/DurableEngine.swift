import Logging
import RowCastJSON
import RowCastPluginHosting
import RowCastWire

/// The engine behind a durable store: group commit and restart recovery.
///
/// Each batch goes through `Engine.process`, then everything it changed (items, sections,
/// seq and epoch, remembered answers) is written to the store in one transaction, and only
/// then are its deltas and replies handed back to be sent. When the commit fails, the engine
/// is rolled back to the committed state, nothing of the batch is published, and every reply
/// of the batch becomes a `storage_error`.
///
/// At start, every stored feed comes back with its stored rows and continues its seq in its
/// epoch, unless its history cannot be shown to continue (see `StoreContinuity`, damaged
/// records, and renderer changes of what is rendered at start): then it gets a new epoch, so
/// subscribers resync instead of diverging. Rows whose plugin changed are rendered again
/// afterwards, in the background (`submitStaleRender`), and published as ordinary deltas.
///
/// Not `Sendable`: it, its engine and its store belong to the daemon's loop thread.
public final class DurableEngine {
    /// The engine.
    public let engine: Engine
    let store: any FeedStore
    let logger: Logger
    private let makeEpoch: () -> String
    private let ledgerLimits: RequestLedger.Limits
    /// Renderer identities the store has recorded, by kind and type.
    var recordedRenderers: [RendererKey: String?] = [:]
    /// Writes the pipeline's commits on a thread of its own (see `DurableEngine+Pipeline.swift`).
    let writer: CommitWriter
    /// Batches applied to the engine whose commit has not started, oldest first.
    var submitted: [UncommittedBatch] = []
    /// Batches the writer is committing, oldest first.
    var committing: [UncommittedBatch] = []
    /// Outputs of committed batches not yet handed back.
    var released: [EngineOutput] = []
    /// The receipt and size of the batch begun and not yet applied (`begin`, `resume`).
    var beganBatch: (receipt: BatchReceipt?, messageCount: Int)?
    /// When commits start and ingest is held (grouping and pacing, see `CommitSchedule`).
    var schedule = CommitSchedule()
    /// The shortest time from one commit's start to the next one's, for batches that only
    /// carry ingest (see `commitDue`); zero commits each batch as soon as the writer is free.
    public var ingestCommitInterval: Duration {
        get { schedule.interval }
        set { schedule.interval = newValue }
    }
    /// Set by the daemon after each read: whether its last read filled a batch, so that more
    /// ingest is waiting in the socket. While so, batches that only carry ingest wait for the
    /// next batch to join their commit, up to `groupedMessageLimit` messages (see
    /// `holdsForBacklog`).
    public var ingestBacklog = false
    /// Told of every successful commit (the daemon's metrics): how long the store took to write
    /// it and how many messages its batches carried. Called on the loop thread, once per commit.
    public var commitObserver: ((_ duration: Duration, _ messages: Int) -> Void)?
    /// The error of the last commit that failed for lack of space, until the disk has room
    /// again (see `checkSpace`).
    var diskFull: StoreError?
    /// A rollback that could not read the store back (`unavailable`: a PostgreSQL server down):
    /// the feeds and renderer records to roll back, and why. While set, writes are refused at
    /// once and the rollback is tried again (see `retryRollBack`).
    var pendingRollBack: (feeds: Set<String>, renderers: [RendererRecord], error: StoreError)?
    /// When `retryRollBack` last tried.
    var lastRollBackTry: ContinuousClock.Instant?
    /// A rollback retried in `retryRollBack` that failed for another reason than
    /// `unavailable`: the next `collectCommitted` throws it (the daemon stops).
    var rollBackFailure: StoreError?
    /// When the last commit started.
    var lastCommitStart: ContinuousClock.Instant? { schedule.lastCommitStart }
    /// Expires when held-back batches are due (`commitDue`), so a wait elsewhere can start
    /// their commit on time (see `advanceWhileWaiting`).
    let pacingTimer = OneShotTimer()

    /// Item or header type, as a dictionary key.
    struct RendererKey: Hashable {
        var kind: RendererRecord.Kind
        var type: String

        /// The identity `renderer` gives this type now (nil when nothing renders it).
        func identity(in renderer: any RowRendering) -> String? {
            kind == .item
                ? renderer.rendererIdentity(forItemType: type) : renderer.rendererIdentity(forHeaderType: type)
        }
    }

    /// A durable engine over `engine` and `store`; call `start()` before the first batch.
    /// - Parameter makeEpoch: names the new epochs of feeds whose history cannot continue.
    public init(
        engine: Engine, store: any FeedStore, ledgerLimits: RequestLedger.Limits = RequestLedger.Limits(),
        logger: Logger = Logger(label: "rowcast.durable"), makeEpoch: @escaping () -> String = Engine.randomEpoch
    ) {
        self.engine = engine
        self.store = store
        self.ledgerLimits = ledgerLimits
        self.logger = logger
        self.makeEpoch = makeEpoch
        writer = CommitWriter(store: store)
        engine.logsHistory = true
    }

    /// How long the store's delta log keeps a delta: older ones are dropped at start.
    public static let historyMaximumAge = HistoryLimits.standard.maximumAge

    /// Loads the store into the engine (only the feeds and action events of
    /// `Engine.servedPartitions` when it is set), gives a new epoch to every feed whose history
    /// cannot continue, and records that. Items come back with their stored rows and no plugin
    /// is called for them; those whose type's renderer changed since their rows were drawn
    /// are queued to be rendered again in the background (`submitStaleRender`), and quarantined
    /// items are never rendered. `progress` is told after each feed (done, in all). Returns the
    /// error events of items that no longer render, to publish once subscribers can connect.
    public func start(
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws(StoreError)
        -> [Publication]
    {
        store.keepHistory(
            within: HistoryLimits(
                deltas: engine.limits.historyDeltas, bytes: engine.limits.historyBytes,
                maximumAge: Self.historyMaximumAge))
        let state: StoredState
        if let served = engine.servedPartitions {
            state = try store.load(partitions: served)
        } else {
            state = try store.load()
        }
        for record in state.renderers {
            recordedRenderers[RendererKey(kind: record.kind, type: record.type)] = record.identity
        }
        var feeds = state.feeds
        var events = state.events
        var quarantined = state.quarantine
        if let served = engine.servedPartitions {
            feeds.removeAll { !served.contains(Partition(feed: $0.name)) }
            events.removeAll { !served.contains(Partition(feed: $0.feed)) }
            quarantined.removeAll { !served.contains(Partition(feed: $0.feed)) }
        }
        var commit = StoreCommit()
        commit.historyMaximumAge = Self.historyMaximumAge
        var renewed: Set<String> = []
        for index in feeds.indices {
            guard let reason = newEpochReason(feeds[index], continuity: state.continuity) else { continue }
            renew(&feeds[index].epoch, feed: feeds[index].name, seq: feeds[index].seq, reason: reason, into: &commit)
            feeds[index].history = []
            renewed.insert(feeds[index].name)
        }
        let sharedOrder = engine.ledger.sharedOrder
        engine.ledger = RequestLedger(limits: ledgerLimits, entries: state.ledger)
        engine.ledger.sharedOrder = sharedOrder
        engine.actionEvents.restore(events)
        engine.quarantine.restore(quarantined)
        var unreadable: [DamagedItem] = []
        let staleTypes = self.staleTypes(in: feeds)
        let reports = engine.restore(feeds, unreadable: &unreadable, staleTypes: staleTypes, progress: progress)
        renewEpochs(ofFeedsWith: unreadable, renewed: &renewed, into: &commit)
        commit.damagedItems = feeds.flatMap { $0.damaged.filter { !$0.known } } + unreadable
        // The rows rendered for records that kept none (written before rows were stored).
        commit.feeds = engine.takeChanges()
        commit.quarantine = engine.quarantine.takeChanges()
        var noted: Set<RendererKey> = []
        for feed in feeds {
            var previousType: String?
            for index in feed.items.indices where feed.items[index].type != previousType {
                previousType = feed.items[index].type
                noteRenderer(.item, feed.items[index].type, into: &commit, noted: &noted)
            }
            for section in feed.sections {
                if let type = section.type { noteRenderer(.header, type, into: &commit, noted: &noted) }
            }
        }
        commit.ledger = engine.ledger.takeChanges()
        try store.commit(commit)
        if !staleTypes.isEmpty {
            logger.notice(
                "plugins changed since the rows were stored; their items are rendered again in the background",
                metadata: ["types": "\(staleTypes.sorted())", "items": "\(engine.staleRenders.count)"])
        }
        logger.info(
            "state loaded",
            metadata: [
                "feeds": "\(feeds.count)", "items": "\(feeds.reduce(0) { $0 + $1.items.count })",
                "answers": "\(engine.ledger.count)", "quarantined": "\(engine.quarantine.count)",
                "stale": "\(engine.staleRenders.count)",
            ])
        // Started now rather than with the first commit it is handed: at a trickle the loop
        // writes every commit itself (`collectCommitted(writingHere:)`) and may never hand one over.
        writer.startThread()
        return reports
    }

    /// The item types of `feeds` whose stored rows were drawn by another renderer than the one
    /// loaded now (or by none recorded).
    func staleTypes(in feeds: [RestoredFeed]) -> Set<String> {
        var checked: Set<String> = []
        var stale: Set<String> = []
        // By index: a `for item in` loop copied each item (its strings, JSON and row retained).
        for feed in feeds {
            var previousType: String?
            for index in feed.items.indices where feed.items[index].rendered {
                let type = feed.items[index].type
                guard type != previousType else { continue }
                previousType = type
                guard checked.insert(type).inserted else { continue }
                let key = RendererKey(kind: .item, type: type)
                if recordedRenderers[key] != .some(key.identity(in: engine.renderer)) { stale.insert(type) }
            }
        }
        return stale
    }

    /// Processes one batch and commits it, waiting for the commit: the pipeline (`submit`,
    /// then `flush`) with one batch. On success returns the engine's output; on a failed
    /// commit, the engine is back at the committed state and the output is one `storage_error`
    /// reply per control request, with nothing to publish. Throws only when the engine cannot
    /// be brought back in line with the store (the daemon must stop).
    /// Must not be mixed with batches submitted to the pipeline (`submit`) still uncommitted.
    public func process(_ messages: [IncomingMessage]) throws(StoreError) -> EngineOutput {
        precondition(!hasHeldOutputs, "DurableEngine.process while pipelined batches are held")
        _ = submit(messages)
        return try flush()[0]
    }

    /// Switches to a new renderer (a plugin reload) and commits the feeds' new seqs and the
    /// new renderer identities before the resulting deltas are handed back. When that commit
    /// fails, the deltas are dropped and the feeds they concerned start new epochs in memory
    /// (subscribers resync), since their rows changed without a durable seq.
    /// Only with nothing held in the pipeline (`flush` first).
    public func replaceRenderer(_ renderer: any RowRendering) -> [Publication] {
        precondition(!hasHeldOutputs, "DurableEngine.replaceRenderer while pipelined batches are held")
        precondition(!engine.hasCarriedMessages, "DurableEngine.replaceRenderer while messages are carried")
        let before = engine.feeds.mapValues(\.seq)
        var publications = engine.replaceRenderer(renderer)
        var commit = StoreCommit()
        commit.feeds = engine.takeChanges()
        commit.history = engine.takeHistory()
        commit.historyRetention = engine.limits.historyDeltas
        commit.quarantine = engine.quarantine.takeChanges()
        let written = Set(commit.feeds.map(\.feed))
        for (name, feed) in engine.feeds.sorted(by: { $0.key < $1.key })
        where before[name] != feed.seq && !written.contains(name) {
            commit.counters.append(FeedCounters(feed: name, seq: feed.seq, epoch: feed.epoch))
        }
        for key in recordedRenderers.keys.sorted(by: { ($0.kind.rawValue, $0.type) < ($1.kind.rawValue, $1.type) })
        where key.kind == .header || !engine.staleRenders.types.contains(key.type) {
            let identity = key.identity(in: renderer)
            if recordedRenderers[key]! != identity {
                commit.renderers.append(RendererRecord(kind: key.kind, type: key.type, identity: identity))
            }
        }
        guard !commit.isEmpty else { return publications }
        do {
            try store.commit(commit)
            for record in commit.renderers {
                recordedRenderers[RendererKey(kind: record.kind, type: record.type)] = record.identity
            }
        } catch {
            let changed = Set(commit.counters.map(\.feed)).union(written)
            logger.error(
                "commit after plugin reload failed; changed feeds start new epochs",
                metadata: ["error": "\(error.message)", "feeds": "\(changed.sorted())"])
            for name in changed { engine.feeds[name]?.epoch = makeEpoch() }
            publications.removeAll { publication in changed.contains { Topic.rows($0) == publication.topic } }
        }
        return publications
    }

    /// Records a clean stop and closes the store (flush pipelined batches first: what is still
    /// uncommitted is not written). Returns why the clean stop could not be recorded, if so.
    @discardableResult
    public func close() -> StoreError? {
        writer.stop()
        store.close()
        return store.closeFailure
    }

    deinit {
        writer.stop()
    }

    // MARK: - Helpers

    /// Everything the engine changed since the last call, with the renderer identities the
    /// store has not recorded yet.
    func takeCommit() -> StoreCommit {
        var commit = StoreCommit()
        commit.droppedFeeds = engine.takeDrops()
        commit.feeds = engine.takeChanges()
        commit.ledger = engine.ledger.takeChanges()
        commit.events = engine.actionEvents.takeChanges()
        commit.eventRetention = engine.actionEvents.retention
        commit.history = engine.takeHistory()
        commit.historyRetention = engine.limits.historyDeltas
        commit.quarantine = engine.quarantine.takeChanges()
        var noted: Set<RendererKey> = []
        for change in commit.feeds {
            // A commit's items come in runs of one type: the set is asked once per run.
            var previousType: String?
            for (_, item) in change.items {
                guard let item, item.type != previousType else { continue }
                previousType = item.type
                noteRenderer(.item, item.type, into: &commit, noted: &noted)
            }
            for (_, section) in change.sections {
                if let type = section?.type { noteRenderer(.header, type, into: &commit, noted: &noted) }
            }
        }
        return commit
    }

    /// Adds the current renderer identity of a type to the commit when the store has not
    /// recorded it (or recorded another one). Each type is looked at once per commit (`noted`):
    /// building an identity costs a string of a dozen parts, and a commit has many items of
    /// few types.
    func noteRenderer(
        _ kind: RendererRecord.Kind, _ type: String, into commit: inout StoreCommit, noted: inout Set<RendererKey>
    ) {
        let key = RendererKey(kind: kind, type: type)
        guard noted.insert(key).inserted else { return }
        // Rows of the type drawn by the old renderer are still stored: it stays recorded until
        // they are all rendered again (`recordRefreshedTypes`).
        if kind == .item, engine.staleRenders.types.contains(type) { return }
        let identity = key.identity(in: engine.renderer)
        if let recorded = recordedRenderers[key], recorded == identity { return }
        recordedRenderers[key] = identity
        commit.renderers.append(RendererRecord(kind: kind, type: type, identity: identity))
    }

    /// Records, in `commit`, the current renderer of the item types whose stale rows are all
    /// rendered again now (`Engine.takeRefreshedTypes`).
    func recordRefreshedTypes(into commit: inout StoreCommit) {
        for type in engine.takeRefreshedTypes().sorted() {
            let key = RendererKey(kind: .item, type: type)
            let identity = key.identity(in: engine.renderer)
            recordedRenderers[key] = identity
            commit.renderers.append(RendererRecord(kind: .item, type: type, identity: identity))
        }
    }

    /// Why `feed` must start a new epoch at this start, or nil when it continues.
    func newEpochReason(_ feed: RestoredFeed, continuity: StoreContinuity) -> String? {
        if case .broken(let why) = continuity { return why }
        let found = feed.damaged.filter { !$0.known }
        if let first = found.first {
            return
                "\(found.count) stored item record\(found.count == 1 ? " is" : "s are") damaged (item \"\(first.id)\": \(first.reason)); quarantined, not served"
        }
        return changedRenderer(in: feed)
    }

    /// Gives a new epoch to each feed of `unreadable` items (stored records that do not parse)
    /// not in `renewed` yet, forgetting its history; adds them to `renewed`.
    func renewEpochs(
        ofFeedsWith unreadable: [DamagedItem], renewed: inout Set<String>, into commit: inout StoreCommit
    ) {
        for item in unreadable where !renewed.contains(item.feed) {
            guard let feed = engine.feeds[item.feed] else { continue }
            renew(&feed.epoch, feed: item.feed, seq: feed.seq, reason: "a stored item record is damaged", into: &commit)
            engine.forgetHistory(of: feed)
            renewed.insert(item.feed)
        }
    }

    /// Gives a feed a new epoch (`epoch` is its stored or installed epoch), logs why, and
    /// records the counters in `commit`.
    func renew(
        _ epoch: inout String, feed: String, seq: UInt64, reason: String, into commit: inout StoreCommit
    ) {
        let renewed = makeEpoch()
        logger.notice(
            "feed starts a new epoch; subscribers will resync",
            metadata: [
                "feed": "\(feed)", "seq": "\(seq)", "old_epoch": "\(epoch)", "epoch": "\(renewed)",
                "reason": "\(reason)",
            ])
        epoch = renewed
        commit.counters.append(FeedCounters(feed: feed, seq: seq, epoch: renewed))
    }

    /// Why a stored feed's rows would not be those its subscribers saw: a type whose renderer
    /// differs from the one recorded, of a section header or of an item whose record kept no
    /// row (both are rendered at start; stored rows are served as they were) (nil when none).
    private func changedRenderer(in feed: RestoredFeed) -> String? {
        var checked: Set<RendererKey> = []
        func differs(_ kind: RendererRecord.Kind, _ type: String) -> Bool {
            let key = RendererKey(kind: kind, type: type)
            guard checked.insert(key).inserted else { return false }
            guard let recorded = recordedRenderers[key] else { return true }
            return recorded != key.identity(in: engine.renderer)
        }
        for index in feed.items.indices where !feed.items[index].rendered && differs(.item, feed.items[index].type) {
            return "the renderer of item type \(feed.items[index].type) changed since its rows were published"
        }
        for section in feed.sections {
            if let type = section.type, differs(.header, type) {
                return "the renderer of section type \(type) changed since its header was published"
            }
        }
        return nil
    }

    /// Puts the engine back at the committed state of `feeds` and reloads the ledger.
    func rollBack(feeds names: [String], renderers: [RendererRecord]) throws(StoreError) {
        for record in renderers { recordedRenderers[RendererKey(kind: record.kind, type: record.type)] = nil }
        do throws(StoreError) {
            let committed = try store.feeds(named: names)
            // Damage found now would need a new epoch and its mark, which only a start gives:
            // stop, and let the next start do it.
            if let damaged = committed.lazy.flatMap(\.damaged).first(where: { !$0.known }) {
                throw StoreError(
                    .corrupt, path: "feed \(damaged.feed)",
                    message:
                        "item \"\(damaged.id)\" of feed \"\(damaged.feed)\" was found damaged while rolling back a failed commit (\(damaged.reason)); rowcastd stops so that its next start gives the feed a new epoch and quarantines the item"
                )
            }
            let present = Set(committed.map(\.name))
            for name in names where !present.contains(name) { engine.discardFeed(named: name) }
            var unreadable: [DamagedItem] = []
            // Rows of the refused commits (stale ones rendered again, among them) are gone: the
            // stored ones of the types they recorded are rendered again.
            let staleTypes = engine.staleRenders.types.union(renderers.filter { $0.kind == .item }.map(\.type))
            _ = engine.restore(committed, unreadable: &unreadable, staleTypes: staleTypes)
            _ = engine.takeChanges()
            // Of the quarantine, what belongs to the partitions this engine serves (engine
            // loops and cluster nodes share the store).
            let served = engine.servedPartitions
            engine.quarantine.restore(
                try store.quarantinedItems().filter { served?.contains(Partition(feed: $0.feed)) ?? true })
            if let damaged = unreadable.first {
                throw StoreError(
                    .corrupt, path: "feed \(damaged.feed)",
                    message:
                        "item \"\(damaged.id)\" of feed \"\(damaged.feed)\" does not parse after rolling back a failed commit (\(damaged.reason)); rowcastd stops so that its next start gives the feed a new epoch and quarantines the item"
                )
            }
            let sharedOrder = engine.ledger.sharedOrder
            engine.ledger = RequestLedger(limits: ledgerLimits, entries: try store.ledgerEntries())
            engine.ledger.sharedOrder = sharedOrder
        } catch {
            // A store that cannot be reached is retried (`retryRollBack`); anything else stops.
            if error.kind != .unavailable {
                logger.critical(
                    "cannot read the committed state back after a failed commit; stopping",
                    metadata: ["error": "\(error.message)"])
            }
            throw error
        }
    }

    /// The output of a batch whose commit failed: nothing published, every reply a
    /// `storage_error` that keeps the request's `op`, `req` and `client`.
    static func refusal(of output: EngineOutput, error: StoreError) -> EngineOutput {
        var refused = EngineOutput()
        refused.receipt = output.receipt
        let storageError = RowCastError(
            .storageError,
            "could not commit the batch this request came in: \(error.message) Nothing of the request was applied; send it again later."
        )
        for reply in output.replies {
            let original = (try? JSONParser.parse(reply.body))?.objectValue
            let body = ReplyBuilder.failure(
                storageError, op: original?["op"]?.stringValue, req: RequestID.member(of: reply.body),
                client: original?["client"]?.stringValue)
            refused.replies.append(Reply(token: reply.token, body: body))
        }
        // A snapshot taken in the batch saw what is now rolled back: refused as well.
        for job in output.snapshots {
            refused.replies.append(
                Reply(
                    token: job.token,
                    body: ReplyBuilder.failure(storageError, op: job.op, req: job.req, client: job.client)))
        }
        // A deferred request (reload) of the batch is not carried out; it is answered too.
        for deferred in output.deferred {
            let request = deferred.request
            refused.replies.append(
                Reply(
                    token: deferred.token,
                    body: ReplyBuilder.failure(storageError, op: request.op, req: request.req, client: request.client)))
        }
        return refused
    }
}

@available(*, unavailable)
extension DurableEngine: Sendable {}
