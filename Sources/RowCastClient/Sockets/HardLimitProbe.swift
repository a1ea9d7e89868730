import RowCastJSON
import ZeroMQ

/// Keeps a request over rowcastd's hard message limit from being sent, and says so as a
/// `too_large` error (docs/PROTOCOL.md, "Message size").
///
/// rowcastd answers `too_large` to every message up to its hard limit
/// (`limits.hard_message_bytes` in `status`, 64 × `max_message_bytes` + 64 KiB); a bigger one
/// makes libzmq close the connection before rowcastd sees it, so it would never be answered.
/// No hard limit is below 64 KiB, so smaller messages are never checked; for a bigger one the
/// limit is asked once of the daemon's control socket (on a connection of its own, so replies
/// already on their way to the caller are not disturbed). When the daemon cannot be asked,
/// the message is sent unchecked.
final class HardLimitProbe {
    /// Messages up to this size are below every daemon's hard limit.
    static let alwaysAccepted = 64 * 1024

    /// The control endpoint asked.
    let controlEndpoint: String
    private let context: Context?
    private let timeout: Duration
    private let curve: CurveCredentials?
    /// nil: not asked yet; .some(nil): asked, and the daemon did not say.
    private var learned: Int??

    /// A probe that asks `controlEndpoint` (within `timeout`, with CURVE when `curve` is
    /// given) when it needs to.
    init(controlEndpoint: String, context: Context?, timeout: Duration, curve: CurveCredentials? = nil) {
        self.controlEndpoint = controlEndpoint
        self.context = context
        self.timeout = timeout
        self.curve = curve
    }

    /// Throws `too_large` when `size` bytes are over the daemon's hard limit.
    func check(size: Int, op: String) throws(RowCastClientError) {
        guard size > Self.alwaysAccepted, let limit = hardLimit(), size > limit else { return }
        throw RowCastClientError(
            code: "too_large",
            message:
                "\(op) request of \(size) bytes is over the hard limit of \(limit) bytes of rowcastd at \(controlEndpoint) (limits.hard_message_bytes in status): it was not sent, since rowcastd would drop the connection without an answer. Split it (a reset into upserts, say) or raise limits.max_message_bytes"
        )
    }

    /// The daemon's hard limit, asked once.
    private func hardLimit() -> Int? {
        if let learned { return learned }
        var limit: Int?
        if let client = try? ControlClient(endpoint: controlEndpoint, context: context, timeout: timeout, curve: curve)
        {
            limit = (try? client.status())?["limits"]?["hard_message_bytes"]?.integerValue
            client.close()
        }
        learned = .some(limit)
        return limit
    }
}

@available(*, unavailable)
extension HardLimitProbe: Sendable {}
