import RowCastPluginHosting

/// A message that a parked batch (`Engine.parkBatch`) left unapplied: it waited on a plugin
/// host's answer, or came after one that did in its feed or from its connection. The next
/// batch applies it first, with the render jobs its own batch sent.
struct CarriedMessage {
    /// The message as read.
    var message: IncomingMessage
    /// The message decoded.
    let decoded: RequestDecoder.Outcome
    /// The stream its jobs are answered on (nil: it sent none).
    let stream: (any RenderStream)?
    /// Its jobs in `stream`.
    let jobs: Range<Int>

    /// Whether every job of it has its outcome.
    var isReady: Bool {
        guard let stream else { return true }
        return jobs.allSatisfy(stream.hasOutcome(at:))
    }
}
