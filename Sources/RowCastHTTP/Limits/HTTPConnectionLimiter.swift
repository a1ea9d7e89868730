import Logging
import NIOCore
import Synchronization

/// What every connection of one HTTP server shares: its limits, the count of connections per
/// peer address, and the log lines a limit hit writes, throttled per kind (at most one every
/// `logInterval`, with the number left unwritten). `Sendable`: its state is behind a `Mutex`.
public final class HTTPConnectionLimiter: Sendable {
    /// A limit a connection hit, as logged.
    enum Event: CaseIterable, Sendable {
        /// A connection over the per-peer cap was closed.
        case peerLimit
        /// A head did not arrive in time (answered 408, or closed when nothing came).
        case headTimeout
        /// A head was too large (answered 431).
        case headTooLarge
        /// A client took no data for the write timeout (reset).
        case writeStalled
    }

    /// What the lock guards.
    private struct State {
        var peers: PeerConnectionCounts
        var throttles: [Event: LogThrottle]
    }

    /// The shortest time between two log lines of one kind.
    static let logInterval = TimeAmount.seconds(10)

    /// The limits every connection gets.
    public let limits: HTTPConnectionLimits
    /// Where limit hits are logged (at `notice`).
    let logger: Logger
    private let state: Mutex<State>

    /// A limiter applying `limits`, logging to `logger`.
    public init(limits: HTTPConnectionLimits, logger: Logger) {
        self.limits = limits
        self.logger = logger
        let throttles = Dictionary(
            uniqueKeysWithValues: Event.allCases.map { ($0, LogThrottle(interval: Self.logInterval)) })
        self.state = Mutex(
            State(peers: PeerConnectionCounts(limit: limits.maxConnectionsPerPeer), throttles: throttles))
    }

    /// Counts a new connection from `peer`; false (and one throttled log line) when `peer`
    /// already holds `maxConnectionsPerPeer`.
    func admit(_ peer: String) -> Bool {
        if state.withLock({ $0.peers.admit(peer) }) { return true }
        report(.peerLimit, peer: peer)
        return false
    }

    /// A connection `admit` counted closed.
    func release(_ peer: String) {
        state.withLock { $0.peers.release(peer) }
    }

    /// How many connections `peer` holds now.
    func held(by peer: String) -> Int { state.withLock { $0.peers.held(by: peer) } }

    /// Logs that a connection of `peer` hit a limit, unless a line of that kind was written
    /// within `logInterval`.
    func report(_ event: Event, peer: String) {
        guard let suppressed = state.withLock({ $0.throttles[event]?.admit(at: .now()) }) else { return }
        var metadata: Logger.Metadata = ["peer": "\(peer)"]
        if suppressed > 0 { metadata["not_logged"] = "\(suppressed) more since the last line like this" }
        let settings = limits.settings
        switch event {
        case .peerLimit:
            metadata["limit"] = "\(limits.maxConnectionsPerPeer)"
            metadata["setting"] = "\(settings.maxConnectionsPerPeer)"
            logger.notice("HTTP connection refused: its address holds the most connections allowed", metadata: metadata)
        case .headTimeout:
            metadata["timeout"] = "\(HTTPConnectionLimits.seconds(limits.headerTimeout)) s"
            metadata["setting"] = "\(settings.headerTimeout)"
            logger.notice("HTTP connection closed: its request head did not arrive in time", metadata: metadata)
        case .headTooLarge:
            metadata["limit"] = "\(limits.maxHeadBytes) bytes"
            logger.notice("HTTP request refused with 431: its head is too large", metadata: metadata)
        case .writeStalled:
            metadata["timeout"] = "\(HTTPConnectionLimits.seconds(limits.writeTimeout)) s"
            metadata["setting"] = "\(settings.writeTimeout)"
            logger.notice("HTTP connection reset: the client took no data in time", metadata: metadata)
        }
    }
}
