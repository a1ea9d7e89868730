/// How an ``AckedPublisher`` paces and retries its requests.
public struct AckedPublisherOptions: Sendable, Equatable {
    /// Most requests sent and not yet answered (1 sends one at a time).
    public var window: Int
    /// How long the oldest unanswered request waits before every unanswered request is sent
    /// again over a new connection.
    public var retryTimeout: Duration
    /// How long a request may stay unanswered, retries included, before it fails with
    /// `timeout` (its outcome is then unknown).
    public var timeout: Duration
    /// How long a new connection may take to be ready before another one is tried.
    public var connectTimeout: Duration
    /// Whether a daemon that is not listening (or refuses the handshake) fails the requests
    /// at once with `not_listening` (`handshake_failed`) instead of after ``timeout``; only
    /// until the daemon first answers: later, a refused connection is retried as before (the
    /// daemon may be restarting). Off by default; `rowcast publish` turns it on.
    public var reportsRefusal = false

    /// The most requests the daemon is sure to remember answers for, per client
    /// (docs/PROTOCOL.md, "Delivery guarantees"): the largest useful window.
    public static let maximumWindow = 1024

    /// Options from their parts; `window` is kept between 1 and ``maximumWindow``.
    public init(
        window: Int = 64, retryTimeout: Duration = .seconds(1), timeout: Duration = .seconds(30),
        connectTimeout: Duration = .milliseconds(250)
    ) {
        self.window = min(max(window, 1), Self.maximumWindow)
        self.retryTimeout = retryTimeout
        self.timeout = timeout
        self.connectTimeout = connectTimeout
    }
}
