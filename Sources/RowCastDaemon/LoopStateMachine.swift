/// The decisions of rowcastd's loop (`Daemon.run`) in one pure type: each pass, the loop tells
/// it what happened (the pass began, the wait ended, a batch was read, something was published)
/// with the time it happened, and does what it answers. It touches no socket, clock or engine,
/// so every rule is tested with made-up instants (`LoopStateMachineTests`).
///
/// One pass:
///
/// 1. `passBegan`: how to wait. While a commit is being written the loop waits for nothing
///    and tries every socket (it has work to overlap with the commit). Otherwise it polls its
///    sockets until the next deadline: the heartbeat, the watchdog, a position tick, a paced
///    commit falling due, or held ingest to be read; not at all when batches wait for a backlog
///    that may already be there.
/// 2. `waitEnded`: which sockets to read. Ingest found readable while it is held
///    (`CommitSchedule.ingestHeldUntil`) is left unread and remembered; once the hold ends it is
///    read whether or not the wait saw it again.
/// 3. `batchRead`: whether the batch filled up, so more ingest is waiting (the pipeline's
///    backlog), and how the pass collects committed outputs: under a backlog without waiting
///    for the commit in flight.
///    The batch is then begun and applied by `Daemon.applyBegunBatch`, which waits for plugin
///    hosts in the loop's own frame and sends what commits released meanwhile.
/// 4. `published` and `heartbeatDue`: a heartbeat goes out when nothing was published for a
///    heartbeat interval.
///
/// The pipeline's own rules (grouping, pacing) are `CommitSchedule`'s; the order rules of a
/// pass stay in `Daemon.run`: a batch with a deferred request (`reload`) and a reload signal
/// are each preceded by a flush, so a reload sees exactly the batches before it.
struct LoopStateMachine {
    /// The configuration it decides by.
    struct Settings: Equatable {
        /// The most messages read in one pass (`batch_limit`).
        var batchLimit: Int
        /// How long the publish socket may stay silent before a heartbeat.
        var heartbeat: Duration
        /// Whether this loop sends the heartbeats: of several engine loops only the first does,
        /// and the others neither send one nor wake for one.
        var sendsHeartbeats = true
        /// The most control requests read in one pass, and the most snapshot replies in writing
        /// before the loop stops reading control requests.
        var controlRequestsPerPass: Int
    }

    /// What the commit pipeline says at the start of a pass (`DurableEngine`).
    struct Pipeline: Equatable {
        /// A commit is being written.
        var isCommitting: Bool
        /// Submitted batches wait for the next one (`DurableEngine.holdsForBacklog`).
        var holdsForBacklog: Bool
        /// When held-back batches are due to be committed (`DurableEngine.commitDue`).
        var commitDue: ContinuousClock.Instant?
        /// Until when ingest that arrives now waits unread (`DurableEngine.ingestHeldUntil`).
        var ingestHeldUntil: ContinuousClock.Instant?
    }

    /// The pass's other deadlines.
    struct Deadlines: Equatable {
        /// How long until the systemd watchdog must be pinged, when there is one.
        var watchdog: Duration?
        /// When the next `position` events are due, if any wait.
        var positionTick: ContinuousClock.Instant?
        /// Snapshot replies are being written (they are sent within a millisecond of being done).
        var snapshotsBusy: Bool
        /// Work waits for an idle pass (rows restored stale, `Engine.renderStaleChunk`): the
        /// pass does not wait.
        var backgroundWork = false
        /// How long until messages carried from a parked batch must look at their plugin
        /// hosts again (a call's deadline), when some wait on one; their descriptors are
        /// watched too.
        var carriedRender: Duration? = nil
    }

    /// How a pass waits.
    enum Wait: Equatable {
        /// A commit is being written: every socket is tried without waiting.
        case none
        /// Poll for at most `milliseconds`, watching the ingest socket or not (`watchesIngest`:
        /// not while ingest is held); `holdUntil` is when the pacing timer must end the wait
        /// to read held ingest.
        case poll(milliseconds: Int, watchesIngest: Bool, holdUntil: ContinuousClock.Instant?)
    }

    /// Which sockets a pass reads.
    struct Reads: Equatable {
        /// The ingest (PULL) socket.
        var ingest: Bool
        /// The control (ROUTER) socket.
        var control: Bool
    }

    /// How a pass collects the outputs of committed batches.
    enum Collect: Equatable {
        /// Take a finished commit, but do not wait for one in flight (under a backlog).
        case finished
        /// Wait for the commit in flight, then start the next; when commits are sparse, the loop
        /// writes that one itself and sends its outputs at once (it would only wait for it:
        /// `DurableEngine.collectCommitted(writingHere:)`).
        case committed
    }

    /// The configuration in force (a reload may change it).
    var settings: Settings
    /// Whether the ingest socket was found readable while ingest was held: it is read when the
    /// hold ends, and meanwhile not watched, so an idle socket costs no wake-up.
    private(set) var ingestWaiting = false
    /// When something was last published.
    private(set) var lastPublication: ContinuousClock.Instant
    /// The pass's wait: whether it waited, and the hold it ran under.
    private var pass: (waited: Bool, heldUntil: ContinuousClock.Instant?) = (false, nil)

    /// A machine that starts with nothing published before `now`.
    init(settings: Settings, now: ContinuousClock.Instant) {
        self.settings = settings
        lastPublication = now
    }

    /// Whether the pass first waits for snapshot replies to be written: while a pass's worth is
    /// in writing, no more control requests are read (they wait in the socket), so a client
    /// that pipelines thousands of snapshots cannot queue others behind them.
    func waitsForSnapshots(inFlight: Int) -> Bool {
        inFlight >= settings.controlRequestsPerPass
    }

    /// The pass began at `now`: how it waits.
    mutating func passBegan(
        at now: ContinuousClock.Instant, pipeline: Pipeline, deadlines: @autoclosure () -> Deadlines
    ) -> Wait {
        guard !pipeline.isCommitting else {
            pass = (false, nil)
            return .none
        }
        let heldUntil = pipeline.ingestHeldUntil
        pass = (true, heldUntil)
        let holding = heldUntil != nil && ingestWaiting
        let milliseconds =
            pipeline.holdsForBacklog
            ? 0 : timeout(at: now, due: holding ? heldUntil : pipeline.commitDue, deadlines: deadlines)
        return .poll(milliseconds: milliseconds, watchesIngest: !holding, holdUntil: holding ? heldUntil : nil)
    }

    /// The pass's wait ended at `now`, having found these sockets readable (ignored when the
    /// pass did not wait: then every socket is read): which sockets to read.
    mutating func waitEnded(at now: ContinuousClock.Instant, ingestReadable: Bool, controlReadable: Bool) -> Reads {
        guard pass.waited else { return Reads(ingest: true, control: true) }
        if let heldUntil = pass.heldUntil, now < heldUntil {
            ingestWaiting = ingestWaiting || ingestReadable
            return Reads(ingest: false, control: controlReadable)
        }
        return Reads(ingest: ingestReadable || ingestWaiting, control: controlReadable)
    }

    /// The pass read `messages` messages, from the ingest socket or not: whether more ingest is
    /// waiting (the batch filled up), which the pipeline takes as its backlog.
    mutating func batchRead(messages: Int, readIngest: Bool) -> Bool {
        if readIngest { ingestWaiting = false }
        return messages >= settings.batchLimit
    }

    /// How the pass collects committed outputs, given whether more ingest is waiting: under a
    /// backlog the next batch is already there, so the loop applies it rather than wait for
    /// the commit in flight (its outputs go out in a later pass, in order).
    func collect(backlog: Bool) -> Collect {
        backlog ? .finished : .committed
    }

    /// Something was published at `now`.
    mutating func published(at now: ContinuousClock.Instant) {
        lastPublication = now
    }

    /// Whether a heartbeat is due at `now`: nothing was published for a heartbeat interval.
    func heartbeatDue(at now: ContinuousClock.Instant) -> Bool {
        settings.sendsHeartbeats && now - lastPublication >= settings.heartbeat
    }

    /// How long a pass that begins at `now` may wait, in whole milliseconds rounded up (waking
    /// before a held-back commit is due would only poll again; the pacing timer ends the wait
    /// on time): until the next heartbeat, watchdog ping, position tick or `due`, a
    /// millisecond while snapshot replies are being written, not at all while background work
    /// waits, until a carried message's plugin call is due, and at most 100 ms, so a stop
    /// request is seen.
    private func timeout(
        at now: ContinuousClock.Instant, due: ContinuousClock.Instant?, deadlines: () -> Deadlines
    ) -> Int {
        let deadlines = deadlines()
        var wait = settings.sendsHeartbeats ? settings.heartbeat - (now - lastPublication) : .milliseconds(100)
        if let watchdog = deadlines.watchdog { wait = min(wait, watchdog) }
        if let due { wait = min(wait, due - now) }
        if deadlines.snapshotsBusy { wait = min(wait, .milliseconds(1)) }
        if deadlines.backgroundWork { wait = .zero }
        if let tick = deadlines.positionTick { wait = min(wait, tick - now) }
        if let render = deadlines.carriedRender { wait = min(wait, render) }
        let (seconds, attoseconds) = wait.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(0, min(100, milliseconds)))
    }
}
