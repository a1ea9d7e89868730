import Logging
import RowCastJSON
import RowCastPluginHosting
import RowCastWire

/// The heart of rowcastd without sockets: takes a batch of messages, applies the feed
/// operations in order, renders items through the plugins, and returns one delta per changed
/// feed plus the replies, in the order they must go out.
///
/// Not `Sendable`: the engine, its feeds and its renderer belong to the daemon's loop thread.
public final class Engine {
    /// The feeds by name.
    public private(set) var feeds: [String: Feed] = [:]
    /// Running totals for `status`.
    public internal(set) var counters = EngineCounters()
    /// Extra members of the `status` reply (version, endpoints), set by the daemon.
    public var statusMembers = JSONObject()
    /// Recent answers to acked mutations by (client, req): a repeated request gets its first
    /// answer instead of being applied again (see `Engine+Ledger.swift`).
    public var ledger = RequestLedger()
    /// When set, every request that would write to the store (`Request.writesState`) is
    /// refused with this error before it is applied, and queries are answered as usual: the
    /// durable engine sets it while the disk that failed a commit is still full.
    public var refusedWrites: RowCastError?

    /// How much state clients may make the engine hold; the daemon changes them on a reload.
    public var limits = EngineLimits()
    /// Item JSON plus rendered rows over every feed, as the feeds count them.
    let storage = StorageTally()
    /// Bytes of item JSON plus rendered rows held over every feed.
    public var storedBytes: Int { storage.bytes }
    /// What the feeds' delta histories hold, over every feed.
    var history = HistoryLedger()
    /// Whether published deltas (and dropped feeds) are also kept for the store (`takeHistory`,
    /// `takeDrops`): set by the durable engine, so `since` is answered from history after a
    /// restart.
    public var logsHistory = false
    /// Deltas published and not yet taken for the delta log.
    var unloggedHistory: [StoredDelta] = []
    /// Feeds dropped and not yet taken for the store (`takeDrops`; kept only when
    /// `logsHistory`, that is behind a durable store).
    var unstoredDrops: [String] = []
    /// Where the last deltas of the feeds dropped in the batch left them, for its output.
    var droppedPositions: [FeedPosition] = []
    /// The authenticated client of the message being applied (nil when none): a feed it
    /// creates is its own (`Feed.owner`).
    var currentPrincipal: String?
    /// How many feeds each client owns, for its quota.
    var ownedFeeds: [String: Int] = [:]
    /// The counts every engine loop adds its feeds' owners to, when several share the store
    /// (`engine.threads`); nil: this engine's own count is the quota's.
    public var sharedOwners: FeedOwnerCounts?
    /// The place in `sharedOwners` the request being applied took for the feed it may create:
    /// the feed's creation keeps it, the end of the request gives it back otherwise.
    var reservedPlace: (owner: String, feed: String)?
    /// Bytes of recent deltas held for `since`, over every feed.
    public var historyBytes: Int { history.bytes }

    /// Resets being sent in parts, by the name `reset_begin` gave them.
    var stagedResets: [String: StagedReset] = [:]

    /// The recent action events of every feed, for `events` requests (see ``ActionEventLog``).
    public var actionEvents = ActionEventLog()

    /// The items whose plugin crashed or hung on them (see ``Quarantine``).
    public internal(set) var quarantine = Quarantine()
    /// Items restored with rows whose renderer changed since, to render again in the
    /// background (`renderStaleChunk`).
    public internal(set) var staleRenders = StaleRenders()
    /// Until when stale rows are not rendered again: their plugin was paused
    /// (`plugin_unavailable`) on the last chunk.
    var staleRendersWaitUntil: ContinuousClock.Instant?

    var renderer: any RowRendering
    /// The item render jobs of a batch, sent before it is applied when the renderer works in
    /// batches (plugin hosts), by the identity of their input; empty otherwise. Their outcomes
    /// arrive while the batch is applied.
    var prerendered = PrerenderedItems()
    /// The header render jobs of such a batch, by input bytes.
    var prerenderedHeaders: [JobInputKey: PrerenderedJob] = [:]
    /// The streams the `prerendered` jobs are answered on.
    var renderStreams: [any RenderStream] = []
    /// The batch begun and not yet applied to the end (see `Engine+Batches.swift`).
    var batchInProgress: BatchInProgress?
    /// Messages a parked batch left unapplied, for the next batch (`parkBatch`).
    var carried: [CarriedMessage] = []
    /// One shared copy of each cell name: names over 15 bytes are not stored inline by
    /// `String`, and a copy per row costs about 50 bytes each on a million rows (and an
    /// allocation per row to make it).
    var cellNames = CellNames()
    /// Whether snapshot replies are left to the caller to write (`EngineOutput.snapshots`,
    /// the daemon writes them off its loop thread) rather than written into `replies`.
    public var writesSnapshotsLater = false
    /// Decodes every message; the daemon changes its size limit on a configuration reload.
    public var decoder: RequestDecoder
    /// Who may do what, for messages from authenticated clients (nil: nothing is checked).
    public var accessCheck: (any AccessCheck)?
    /// The partitions whose feeds this engine serves (`Partition(feed:)`); nil: every one.
    /// Whoever routes requests to engines sends each to the engine of its feed's partition: a
    /// request naming a feed of another partition is refused with `partition_unavailable`, and
    /// `DurableEngine.start` loads only these partitions' feeds.
    public var servedPartitions: Set<Partition>?
    /// Set while a cluster node's leases may have run out (its loop checks once per pass): a
    /// request naming a feed of any partition is refused as one of a partition not served.
    public var servesNoPartition = false
    let logger: Logger
    let makeEpoch: () -> String
    let started = ContinuousClock.now

    /// An engine rendering through `renderer`.
    /// - Parameter makeEpoch: names a new feed history; random by default.
    public init(
        renderer: any RowRendering, decoder: RequestDecoder = RequestDecoder(),
        logger: Logger = Logger(label: "rowcast.engine"), makeEpoch: @escaping () -> String = Engine.randomEpoch
    ) {
        self.renderer = renderer
        self.decoder = decoder
        self.logger = logger
        self.makeEpoch = makeEpoch
    }

    /// A random 64-bit epoch as 16 hex digits.
    public static func randomEpoch() -> String {
        let hex = String(UInt64.random(in: 1...UInt64.max), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Seconds since the engine started.
    public var uptimeSeconds: Double {
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// What a request turned into, waiting for the batch's deltas before its reply is written.
    enum Pending {
        /// A feed operation that was applied; the reply carries the feed's seq after the batch.
        case applied(Request, feed: String, extra: JSONObject)
        /// A query, answered from the state after the batch.
        case query(Request)
        /// A refusal.
        case failed(RowCastError, op: String?, req: RequestID?, client: String?)
        /// A repeated acked mutation: its first answer (nil while that answer is being written
        /// in the same batch).
        case recalled(LedgerKey, answer: [UInt8]?)
        /// A request that did its work in the batch (a quarantine retry), with its reply members.
        case answered(Request, members: JSONObject)
    }

    /// Counts a reply the daemon could not hand to its client (`counters.dropped`).
    public func countDroppedReply() {
        counters.dropped += 1
    }

    /// Decodes a message. One rule on both sockets: a request is exactly one frame (after the
    /// routing envelope on the control socket); a message with more (or none) is refused whole
    /// with `invalid_request`, echoing what its first frame says of `req` and `client`.
    func decode(_ message: IncomingMessage) -> RequestDecoder.Outcome {
        let isIngest = message.origin == .ingest
        guard message.frameCount == 1 else {
            let found = Correlation(prefix: message.body)
            var error = RowCastError(
                .invalidRequest,
                "a request must be one frame\(isIngest ? "" : " after the envelope ([empty, request])"), got \(message.frameCount); nothing of this message was applied. Send each request as a message of its own"
            )
            if let feed = found.feed, Names.isValidFeed(feed) { error.feed = feed }
            return .failure(error, op: found.op, req: found.req.flatMap { $0.isValid ? $0 : nil }, client: found.client)
        }
        let outcome = decoder.decode(message.body, size: message.size, from: isIngest ? .ingest : .control)
        // Checked before anything is rendered or applied.
        if let principal = message.principal, let accessCheck, case .request(let request) = outcome,
            let refusal = accessCheck.refusal(of: request, from: principal)
        {
            return .failure(refusal, op: request.op, req: request.req, client: request.client)
        }
        if let servedPartitions, case .request(let request) = outcome, let feed = request.feed,
            servesNoPartition || !servedPartitions.contains(Partition(feed: feed))
        {
            let reason =
                servesNoPartition
                ? "which this node does not serve until it renews its lease" : "which this node does not serve now"
            let refusal = RowCastError(
                .partitionUnavailable,
                "feed \(feed) is in \(Partition(feed: feed)), \(reason); nothing was applied, send it again",
                feed: feed)
            return .failure(refusal, op: request.op, req: request.req, client: request.client)
        }
        return outcome
    }

    func handle(
        _ outcome: RequestDecoder.Outcome, from origin: IncomingMessage.Origin, principal: String?,
        batch: inout BatchState, publications: inout [Publication]
    ) -> Pending {
        let isIngest = origin == .ingest
        currentPrincipal = principal
        defer {
            currentPrincipal = nil
            releaseReservedPlace()
        }
        switch outcome {
        case .failure(let error, let op, let req, let client):
            return refuse(error, op: op, req: req, client: client, publishing: isIngest, into: &publications)
        case .request(let request):
            if let refusal = refusedWrites, request.writesState {
                // The disk is known full: refused before anything is applied, so nothing has
                // to be rolled back, and not remembered, so a retry is applied once there is
                // room. A remembered answer is still given.
                if !isIngest, let key = LedgerKey(client: request.client, req: request.req),
                    let answer = ledger.answer(key)
                {
                    return .recalled(key, answer: answer)
                }
                return refuse(
                    refusal, op: request.op, req: request.req, client: request.client, publishing: isIngest,
                    into: &publications)
            }
            if case .quarantine(retry: true, let id) = request.operation {
                return .answered(
                    request,
                    members: retryQuarantine(feed: request.feed, id: id, batch: &batch, publications: &publications))
            }
            switch request.operation {
            case .resetBegin, .resetAppend:
                do {
                    return .answered(request, members: try stage(request, publications: &publications))
                } catch {
                    return refuse(
                        error, op: request.op, req: request.req, client: request.client, publishing: false,
                        into: &publications)
                }
            case .select(let id, let action, let value, let user):
                // Runs in the batch: a change it makes is committed with the batch, and its
                // answer is remembered by (client, req) like a feed operation's. A user it
                // asserts was allowed when it was decoded (`AccessCheck.refusal`).
                if let recalled = recall(request) { return recalled }
                do {
                    let extra = try performSelect(
                        request, id: id, action: action, value: value, requester: user ?? principal ?? request.client,
                        batch: &batch, publications: &publications)
                    counters.applied += 1
                    return .applied(request, feed: request.feed!, extra: extra)
                } catch {
                    return refuse(
                        error, op: request.op, req: request.req, client: request.client, publishing: false,
                        into: &publications)
                }
            default:
                break
            }
            guard request.isMutation else { return .query(request) }
            if !isIngest, let recalled = recall(request) { return recalled }
            do {
                let extra = try apply(request, batch: &batch, publications: &publications)
                counters.applied += 1
                return .applied(request, feed: request.feed!, extra: extra)
            } catch {
                return refuse(
                    error, op: request.op, req: request.req, client: request.client, publishing: isIngest,
                    into: &publications)
            }
        }
    }

    private func refuse(
        _ error: RowCastError, op: String?, req: RequestID?, client: String?, publishing: Bool,
        into publications: inout [Publication]
    ) -> Pending {
        counters.countRejection(error.code)
        logger.debug(
            "refused request",
            metadata: ["code": "\(error.code)", "feed": "\(error.feed ?? "-")", "error": "\(error.message)"])
        if publishing { publications.append(ReplyBuilder.errorEvent(error, req: req, client: client)) }
        return .failed(error, op: op, req: req, client: client)
    }

    /// Diffs every feed the batch touched against its last snapshot and publishes one delta
    /// per feed that visibly changed; returns where those feeds stand after their deltas.
    @discardableResult
    func publishDeltas(for dirtyFeeds: [String], into publications: inout [Publication]) -> [FeedPosition] {
        var positions: [FeedPosition] = []
        if quarantine.hasDropped { publications += quarantineDropReports() }
        for name in dirtyFeeds {
            guard let feed = feeds[name] else { continue }
            let delta = feed.finishBatch()
            guard !delta.isEmpty else { continue }
            feed.seq += 1
            counters.published += 1
            let body = DeltaEncoder.encode(delta, feed: name, epoch: feed.epoch, seq: feed.seq)
            publications.append(Publication(topic: Topic.rows(name), body: body))
            recordHistory(feed, body: body)
            positions.append(FeedPosition(feed))
        }
        return positions
    }

    /// Where every feed stands now (for the daemon's positions at start and after a reload,
    /// when nothing is waiting to be committed).
    public var allPositions: [FeedPosition] { feeds.values.map(FeedPosition.init) }

    /// Puts a restored feed in place, replacing any feed of that name.
    func installRestored(_ feed: Feed) {
        if let replaced = feeds[feed.name] {
            storage.bytes -= replaced.storedBytes
            forgetHistory(of: replaced)
            disown(replaced)
        }
        if let owner = feed.owner { own(owner, feed: feed.name) }
        feeds[feed.name] = feed
    }

    /// Counts the feed `name` of `owner` against its quota (in `sharedOwners` too, unless the
    /// request creating it took its place there already).
    private func own(_ owner: String, feed name: String) {
        ownedFeeds[owner, default: 0] += 1
        if let reserved = reservedPlace, reserved.owner == owner, reserved.feed == name {
            reservedPlace = nil
        } else {
            sharedOwners?.add(1, to: owner)
        }
    }

    /// Gives back the place the request took for a feed it did not create.
    func releaseReservedPlace() {
        guard let reserved = reservedPlace else { return }
        reservedPlace = nil
        sharedOwners?.add(-1, to: reserved.owner)
    }

    /// The feeds `owner` owns, on every loop when several share the store.
    func ownedFeedCount(of owner: String) -> Int {
        sharedOwners?.count(of: owner) ?? ownedFeeds[owner, default: 0]
    }

    /// Stops counting `feed` against its owner's quota.
    private func disown(_ feed: Feed) {
        guard let owner = feed.owner else { return }
        ownedFeeds[owner] = (ownedFeeds[owner] ?? 1) > 1 ? ownedFeeds[owner]! - 1 : nil
        sharedOwners?.add(-1, to: owner)
    }

    /// Removes a feed from the engine: one the durable store never had (after a failed commit
    /// created it), or one dropped (`drop`).
    func discardFeed(named name: String) {
        if let discarded = feeds[name] {
            storage.bytes -= discarded.storedBytes
            forgetHistory(of: discarded)
            disown(discarded)
        }
        feeds[name] = nil
    }

    /// The feed named `name`, created (with a new epoch) when `create` is set.
    func feed(named name: String, create: Bool) -> Feed? {
        if let feed = feeds[name] { return feed }
        guard create else { return nil }
        let feed = Feed(name: name, epoch: makeEpoch(), tally: storage)
        feed.owner = currentPrincipal
        if let owner = feed.owner { own(owner, feed: name) }
        feeds[name] = feed
        logger.info("feed created", metadata: ["feed": "\(name)", "epoch": "\(feed.epoch)"])
        return feed
    }
}

/// The feeds a batch changed, in first-touch order.
struct BatchState {
    private(set) var dirtyFeeds: [String] = []
    private var seen: Set<String> = []

    /// Records that the batch changed `feed`. A batch changes few feeds: up to 16 are found
    /// by comparing names, which costs less than hashing one per change; the set takes over after.
    mutating func touch(_ feed: String) {
        if dirtyFeeds.count < Self.listedFeeds {
            guard !dirtyFeeds.contains(feed) else { return }
            dirtyFeeds.append(feed)
            if dirtyFeeds.count == Self.listedFeeds { seen = Set(dirtyFeeds) }
            return
        }
        if seen.insert(feed).inserted { dirtyFeeds.append(feed) }
    }

    /// How many feeds are searched as a list before the set is built.
    private static let listedFeeds = 16
}
