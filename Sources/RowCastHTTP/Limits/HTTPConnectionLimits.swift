/// What one client may hold of an HTTP endpoint (`rowcast serve`, rowcastd's `endpoints.http`),
/// so that no client can starve the others (docs/SECURITY.md, "Browsers"; docs/OPERATIONS.md,
/// "HTTP connection limits"):
///
/// - **Request heads.** A request's line and headers must arrive within `headerTimeout`, counted
///   from the connection's start (the first request) or from the first byte of a later one; a
///   head that is late is answered 408 and the connection closed (one that sent nothing is
///   closed without an answer). A head of more than `maxHeadBytes` is answered 431 and closed.
/// - **Idle connections.** A kept-alive connection with nothing to do closes after
///   `idleTimeout` (a request body that stops arriving does too).
/// - **Writes.** A connection that takes no data for `writeTimeout` while data waits for it (a
///   stream whose client stopped reading, say, before or after its `overflow` event) is reset.
/// - **Peers.** An address may hold `maxConnectionsPerPeer` connections at once; the next one is
///   closed without an answer, and logged (at most one line per kind of limit every ten seconds).
///   Not applied on a Unix socket, whose clients have no address.
public struct HTTPConnectionLimits: Sendable, Equatable {
    /// How long a request head may take to arrive (nginx's `client_header_timeout`).
    public var headerTimeout: Duration
    /// How long a kept-alive connection may wait for its next request (or a request body for its
    /// next part).
    public var idleTimeout: Duration
    /// How long a connection may take no data while data waits for it before it is reset.
    public var writeTimeout: Duration
    /// How many connections one address may hold at once.
    public var maxConnectionsPerPeer: Int
    /// The largest request head (request line and headers), in bytes.
    public var maxHeadBytes: Int
    /// How the operator sets each limit, for log lines: a flag or a key each.
    public var settings: Settings

    /// The largest request head by default: 32 KiB, twice nginx's largest default header buffer
    /// (and below SwiftNIO's 80 KiB of header fields).
    public static let defaultMaxHeadBytes = 32 * 1024
    /// How long a connection answered 408 or 431 keeps reading (and dropping) what the client
    /// still sends, so that the client reads the answer instead of a reset (nginx's lingering
    /// close); it closes sooner when the client does.
    public static let lingerTime = Duration.seconds(2)

    /// Limits with these values; the defaults are those of docs/OPERATIONS.md.
    public init(
        headerTimeout: Duration = .seconds(60), idleTimeout: Duration = .seconds(60),
        writeTimeout: Duration = .seconds(30),
        maxConnectionsPerPeer: Int = 64, maxHeadBytes: Int = defaultMaxHeadBytes, settings: Settings = Settings()
    ) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.maxConnectionsPerPeer = maxConnectionsPerPeer
        self.maxHeadBytes = maxHeadBytes
        self.settings = settings
    }

    /// `duration` in seconds as a flag takes it, for messages: `60`, or `0.5` (to the
    /// millisecond).
    public static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        let milliseconds = whole * 1000 + fraction / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }

    /// The names of the settings, as the log lines and answers give them.
    public struct Settings: Sendable, Equatable {
        /// How `headerTimeout` is set.
        public var headerTimeout: String
        /// How `writeTimeout` is set.
        public var writeTimeout: String
        /// How `maxConnectionsPerPeer` is set.
        public var maxConnectionsPerPeer: String

        /// The names of `rowcast serve`'s flags by default.
        public init(
            headerTimeout: String = "--header-timeout", writeTimeout: String = "--write-timeout",
            maxConnectionsPerPeer: String = "--max-connections-per-peer"
        ) {
            self.headerTimeout = headerTimeout
            self.writeTimeout = writeTimeout
            self.maxConnectionsPerPeer = maxConnectionsPerPeer
        }
    }
}
