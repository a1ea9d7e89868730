/// When the pipeline starts a commit, and when the loop leaves ingest unread: the grouping and
/// pacing rules of `DurableEngine`'s pipeline as a pure value, with the time passed in, so that
/// each rule is tested without a store, a thread or a clock.
///
/// - Under a flood, batches that carry only ingest wait for the next batch to join their
///   commit (`holdsForBacklog`).
/// - Under a trickle, batches that carry only ingest wait until `interval` after the last
///   commit started (`commitDue`), and ingest that arrives meanwhile is read shortly before
///   that instant, as one batch (`ingestHeldUntil`).
/// - A batch a client waits on (a reply, a deferred request, a snapshot) is never held.
/// - When commits are sparse, a commit the loop would only wait for is written on the loop's
///   own thread (`writesHere`).
public struct CommitSchedule: Sendable, Equatable {
    /// What is submitted and not yet committing, as the rules see it.
    public struct Pending: Sendable, Equatable {
        /// How many messages the batches carry together.
        public var messages: Int
        /// Whether a client waits for something of one of them.
        public var waitedOn: Bool

        /// Pending batches of `messages` messages, one of which a client waits on or not.
        public init(messages: Int, waitedOn: Bool) {
            self.messages = messages
            self.waitedOn = waitedOn
        }
    }

    /// Batches that add up to this many messages are committed without pacing: the interval is
    /// for a trickle. Under a flood, what arrived during one commit is already a large batch,
    /// and holding it back only had the loop read the next messages in small batches (each with
    /// its own deltas), which cost throughput.
    public static let pacedMessageLimit = 32

    /// The most messages a commit waits to gather while more ingest is waiting
    /// (`holdsForBacklog`).
    ///
    /// Under a flood the loop reads batches of `batch_limit` messages (1,024 by default: larger
    /// batches no longer fit the caches between the engine's passes over them), but a commit
    /// per batch of 1,024 wrote the same B-tree pages into the log up to four times as often.
    /// So commits still gather about this many.
    public static let groupedMessageLimit = 4096

    /// The shortest time from one commit's start to the next one's, for batches that only carry
    /// ingest; zero commits each batch as soon as the writer is free.
    public var interval: Duration = .zero
    /// When the last commit started.
    public private(set) var lastCommitStart: ContinuousClock.Instant?
    /// How many messages the last commit carried when they were all fire-and-forget ingest; 0
    /// when it carried a batch a client waited on.
    public private(set) var lastIngestCommitMessages = 0

    /// A schedule with no commit yet and no pacing.
    public init() {}

    /// How long the last commit took to write, once its outcome was taken (`commitEnded`).
    public private(set) var lastCommitDuration: Duration = .zero

    /// Notes that the commit started last took `duration` to write.
    public mutating func commitEnded(taking duration: Duration) {
        lastCommitDuration = duration
    }

    /// Whether a commit that starts at `now`, when its caller would only wait for it, is written
    /// on the caller's thread instead of the commit thread: when commits are sparse, the writer
    /// having been idle since the last one ended for at least as long as that one took.
    ///
    /// Under a trickle the loop starts a commit and then waits for it, with nothing to apply
    /// meanwhile; handing it to the commit thread and back cost two wake-ups and a pass of the
    /// loop per commit (at 1,000 items/s, a commit per item). Back to back (a flood, a window of
    /// acked requests wider than a batch), the commit thread overlaps the commit with the loop's
    /// next batch, so there it stays.
    public func writesHere(at now: ContinuousClock.Instant) -> Bool {
        guard let lastCommitStart else { return true }
        return now - (lastCommitStart + lastCommitDuration) >= lastCommitDuration
    }

    /// Notes that a commit of `pending` started at `now`.
    public mutating func commitStarted(at now: ContinuousClock.Instant, carrying pending: Pending) {
        lastCommitStart = now
        lastIngestCommitMessages = pending.waitedOn ? 0 : pending.messages
    }

    /// Whether `pending` waits for the next batch before its commit starts: more ingest is
    /// waiting in the socket (`backlog`), it carries fewer than `groupedMessageLimit` messages
    /// and no client waits on it. Holding it costs no latency a client could see apart from the
    /// flood's own queue: the next batch is already there. Asked only while no commit is being
    /// written and something is pending.
    public static func holdsForBacklog(_ pending: Pending, backlog: Bool) -> Bool {
        backlog && pending.messages < groupedMessageLimit && !pending.waitedOn
    }

    /// When `pending` is due to be committed, if that is later than `now`: it only carries
    /// ingest, fewer than `pacedMessageLimit` messages, and the last commit started less than
    /// `interval` ago. Nil when it is committed at once. Asked only while no commit is being
    /// written and something is pending.
    ///
    /// Pacing trades a little latency for far less I/O: under a steady trickle, a commit per
    /// batch meant a commit for every one or two items, each writing the feed's and the commit
    /// counter's pages again.
    public func commitDue(_ pending: Pending, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard let lastCommitStart else { return nil }
        let due = lastCommitStart + interval
        guard due > now else { return nil }
        return pending.waitedOn || pending.messages >= Self.pacedMessageLimit ? nil : due
    }

    /// Until when fire-and-forget ingest that arrives at `now` waits unread, if it should. Asked
    /// only while no commit is being written.
    ///
    /// After a commit of ingest alone, the next one starts `interval` later at the earliest
    /// (`commitDue`). Ingest read meanwhile would only wait for that commit, and a trickle read
    /// message by message pays a pass of the loop and a round trip to a plugin host for each.
    /// So the loop reads it a fifth of the interval before that commit is due (time to render
    /// it), as one batch.
    ///
    /// Nil (read at once) when pacing is off, the last commit carried a batch a client waited on
    /// (what follows is not a paced trickle), it carried fewer than three messages (a trickle
    /// that slow gathers one or two, and the hold would mostly add a wake-up), or that instant
    /// has passed. Control requests are never held.
    public func ingestHeldUntil(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard interval > .zero, lastIngestCommitMessages >= 3, let lastCommitStart else { return nil }
        let readAt = lastCommitStart + interval - interval / 5
        return readAt > now ? readAt : nil
    }
}
