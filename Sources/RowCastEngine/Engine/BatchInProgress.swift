import RowCastPluginHosting

/// A batch the engine has begun and not yet applied to the end: its messages decoded, its
/// render jobs sent, how far it got, and what it produced so far. It lets the loop that owns
/// the engine do the waiting for a renderer in other processes itself (see
/// `Engine.advanceBatch(waiting:)`), instead of the engine waiting inside the batch.
struct BatchInProgress {
    /// The messages, as read.
    let messages: [IncomingMessage]
    /// Each message decoded (and access-checked).
    let decoded: [RequestDecoder.Outcome]
    /// For each message, how many jobs of `stream` it and the messages before it sent; empty
    /// when nothing was prerendered.
    let jobsThrough: [Int]
    /// The stream the batch's prerendered jobs are answered on, if any.
    let stream: (any RenderStream)?
    /// The next message to apply.
    var next = 0
    /// The output so far.
    var output = EngineOutput()
    /// The feeds the batch changed so far.
    var batch = BatchState()
    /// What each control request turned into, with its reply token, for the replies written
    /// once the batch's deltas are known.
    var pending: [(token: Int, pending: Engine.Pending)] = []

    /// Whether message `index` may be applied without waiting: its jobs, and every job before
    /// them, have their outcomes.
    func isReady(_ index: Int) -> Bool {
        guard let stream, jobsThrough[index] > 0 else { return true }
        return stream.hasOutcomes(through: jobsThrough[index] - 1)
    }
}
