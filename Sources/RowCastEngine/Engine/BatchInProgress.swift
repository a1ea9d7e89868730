import RowCastPluginHosting

/// A batch the engine has begun and not yet applied to the end: its messages decoded, its
/// render jobs sent, how far it got, and what it produced so far. It lets the loop that owns
/// the engine do the waiting for a renderer in other processes itself (see
/// `Engine.advanceBatch(waiting:)`), instead of the engine waiting inside the batch.
///
/// The messages a batch left unapplied when the loop parked it (`Engine.parkBatch`) come
/// first, as `carried`, with the jobs their own batches sent; the batch's own messages follow.
struct BatchInProgress {
    /// The messages, as read (carried ones first, their reply tokens renumbered).
    let messages: [IncomingMessage]
    /// Each message decoded (and access-checked).
    let decoded: [RequestDecoder.Outcome]
    /// The messages carried over from parked batches, the first `carried.count` of `messages`.
    let carried: [CarriedMessage]
    /// For each of the batch's own messages (after the carried ones), how many jobs of
    /// `stream` it and the own messages before it sent; empty when nothing was prerendered.
    let jobsThrough: [Int]
    /// The stream the batch's prerendered jobs are answered on, if any.
    let stream: (any RenderStream)?
    /// The first message not applied.
    var next = 0
    /// Which messages after `next` were applied ahead of it (empty until one overtook a
    /// message that waited on its rows).
    var appliedAhead: [Bool] = []
    /// The output so far.
    var output = EngineOutput()
    /// The feeds the batch changed so far.
    var batch = BatchState()
    /// What each control request turned into, with its reply token, for the replies written
    /// once the batch's deltas are known.
    var pending: [(token: Int, pending: Engine.Pending)] = []
    /// How many messages were applied.
    var appliedCount = 0
    /// Whether, when last advanced, the batch waited on the rows of one of its own messages
    /// that nothing before it held back (see `Engine.waitsOnOwnRows`).
    var waitsOnOwnRows = false

    /// Whether message `index` may be applied without waiting: its jobs have their outcomes.
    func isReady(_ index: Int) -> Bool {
        if index < carried.count { return carried[index].isReady }
        let own = index - carried.count
        guard let stream, jobsThrough[own] > 0 else { return true }
        // Usually the jobs before it are answered too: one look covers them all.
        if stream.hasOutcomes(through: jobsThrough[own] - 1) { return true }
        let first = own == 0 ? 0 : jobsThrough[own - 1]
        return (first..<jobsThrough[own]).allSatisfy(stream.hasOutcome(at:))
    }

    /// Whether message `index` was applied (before `next`, or ahead of it).
    func isApplied(_ index: Int) -> Bool {
        index < next || (!appliedAhead.isEmpty && appliedAhead[index])
    }

    /// Records that message `index`, after `next`, was applied ahead of it.
    mutating func markAppliedAhead(_ index: Int) {
        if appliedAhead.isEmpty { appliedAhead = Array(repeating: false, count: messages.count) }
        appliedAhead[index] = true
    }

    /// Message `index`, unapplied, as the next batch carries it.
    func carriedMessage(_ index: Int) -> CarriedMessage {
        if index < carried.count { return carried[index] }
        let own = index - carried.count
        guard !jobsThrough.isEmpty else {
            return CarriedMessage(message: messages[index], decoded: decoded[index], stream: nil, jobs: 0..<0)
        }
        let first = own == 0 ? 0 : jobsThrough[own - 1]
        let last = jobsThrough[own]
        return CarriedMessage(
            message: messages[index], decoded: decoded[index], stream: first < last ? stream : nil, jobs: first..<last)
    }

    /// What the batch waits on: its own stream's hosts and the carried messages'.
    var renderWait: RenderWait? {
        carried.reduce(stream?.renderWait) { wait, message in message.stream?.renderWait?.merged(with: wait) ?? wait }
    }
}
