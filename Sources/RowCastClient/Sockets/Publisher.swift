import RowCastJSON
import ZeroMQ

/// Fire-and-forget feed operations over PUSH to the daemon's ingest (PULL) socket.
///
/// There is no reply: problems are published on the error topics (subscribe to `errors` to
/// see them). Messages wait in the socket until the daemon takes them; ``close(flushWithin:)``
/// gives them time to leave. Not thread-safe: use one publisher from one thread.
public final class Publisher {
    /// The ingest endpoint connected to.
    public var endpoint: String { socket.endpoint }
    /// How long ``send(_:)`` may wait for room in the queue.
    public var timeout: Duration
    /// The PUSH socket.
    private let socket: ClientSocket
    /// Refuses requests over the daemon's hard message limit, when a control endpoint to ask
    /// it was given.
    private let hardLimit: HardLimitProbe?

    /// A publisher connected to `endpoint` (connecting does not wait for the daemon), with
    /// CURVE when `curve` is given. With a `controlEndpoint`, a request over the daemon's hard
    /// message limit is refused with `too_large` instead of being sent (rowcastd never sees
    /// such a message: it is lost with the connection).
    public init(
        endpoint: String = RowCastEndpoints.ingest, context: Context? = nil, timeout: Duration = .seconds(5),
        controlEndpoint: String? = nil, curve: CurveCredentials? = nil
    ) throws(RowCastClientError) {
        socket = try ClientSocket(context: context, type: .push, endpoint: endpoint, curve: curve)
        self.timeout = timeout
        hardLimit = controlEndpoint.map {
            HardLimitProbe(controlEndpoint: $0, context: context, timeout: timeout, curve: curve)
        }
    }

    /// Queues one request (one frame of compact JSON).
    ///
    /// - Throws: `timeout` when the queue stayed full for ``timeout`` (the daemon is not
    ///   taking messages), `invalid_request` when `request` is not an object, `too_large`
    ///   when it is over the daemon's hard limit (with a `controlEndpoint`).
    public func send(_ request: JSONValue) throws(RowCastClientError) {
        guard request.objectValue != nil else {
            throw RowCastClientError(
                code: "invalid_request", message: "a request must be a JSON object, not a \(request.kindName)")
        }
        let bytes = request.serialized()
        try hardLimit?.check(size: bytes.count, op: request["op"]?.stringValue ?? "request")
        guard try socket.send([bytes], deadline: Deadline(timeout)) else {
            throw RowCastClientError(
                code: "timeout",
                message:
                    "could not queue a request for rowcastd at \(endpoint) within \(formatSeconds(timeout.seconds)); the daemon may not be running there (start rowcastd, or pass the right --ingest endpoint)"
            )
        }
    }

    /// Closes the socket, giving queued messages up to `flushWithin` to reach the daemon.
    public func close(flushWithin: Duration) {
        socket.close(linger: flushWithin)
    }
}

@available(*, unavailable)
extension Publisher: Sendable {}
