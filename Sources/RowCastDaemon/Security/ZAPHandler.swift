import Logging
import ZeroMQ

/// The ZAP handler (ZeroMQ RFC 27) that decides which CURVE clients may connect to any of
/// rowcastd's sockets: a REP socket on `inproc://zeromq.zap.01` in the daemon's context,
/// served by the loop thread. A client whose public key is in the keyring is admitted with
/// its name as User-Id (each message it sends then carries that name); any other is refused
/// with 400, counted, and logged once per peer address per minute. On a cluster node, a
/// connection made with the server key every node shares is another node's, admitted with the
/// User-Id `@node` (``ForwardedClient``).
///
/// With several engine loops (`engine.threads`), the front thread serves the one handler of
/// the shared context, and each loop holds one that binds nothing, for its keyring.
///
/// Not `Sendable`: it owns a socket of the loop thread.
final class ZAPHandler {
    /// The endpoint libzmq sends ZAP requests to.
    static let endpoint = "inproc://zeromq.zap.01"
    /// The ZAP domain rowcastd's CURVE sockets set.
    static let domain = "rowcast"

    /// The REP socket; nil for a loop behind the front of several, which binds none.
    let socket: Socket?
    /// The clients admitted; replaced on reload.
    var keyring: ClientKeyring
    /// The public key of the cluster's nodes (the server key they share), or nil when this
    /// daemon is no cluster node.
    let nodeKey: String?
    /// Connections of other cluster nodes admitted so far.
    private(set) var admittedNodes = 0
    /// Connections admitted so far.
    private(set) var admitted = 0
    /// Connections refused so far.
    private(set) var refused = 0
    private let logger: Logger
    /// When each peer address was last logged as refused (bounded; see `noteRefusal`).
    private var lastLogged: [String: ContinuousClock.Instant] = [:]

    /// Binds the handler in `context`; before any CURVE socket binds.
    init(context: Context, keyring: ClientKeyring, nodeKey: String? = nil, logger: Logger) throws {
        let socket = try Socket(context: context, type: .rep)
        try socket.setOption(.linger, 0)
        try socket.bind(Self.endpoint)
        self.socket = socket
        self.keyring = keyring
        self.nodeKey = nodeKey
        self.logger = logger
    }

    /// A handler that binds nothing: one engine loop's keyring, when the front of several
    /// loops serves the ZAP requests (`EngineThreadGroup`).
    init(keyring: ClientKeyring, logger: Logger) {
        socket = nil
        self.keyring = keyring
        nodeKey = nil
        self.logger = logger
    }

    /// Answers every request waiting, without blocking.
    func serve() throws {
        guard let socket else { return }
        while let frames = try socket.receiveMultipart(dontWait: true) {
            _ = try socket.send(reply(to: frames), dontWait: true)
        }
    }

    /// The reply to one ZAP request (RFC 27: version, request id, domain, address, identity,
    /// mechanism, credentials...).
    func reply(to frames: [[UInt8]]) -> [[UInt8]] {
        func answer(_ status: String, _ text: String, user: String = "") -> [[UInt8]] {
            [
                Array("1.0".utf8), frames.count > 1 ? frames[1] : [], Array(status.utf8), Array(text.utf8),
                Array(user.utf8), [],
            ]
        }
        guard frames.count >= 6, frames[0] == Array("1.0".utf8) else {
            return answer("500", "malformed ZAP request")
        }
        let address = String(decoding: frames[3], as: UTF8.self)
        let mechanism = String(decoding: frames[5], as: UTF8.self)
        guard mechanism == "CURVE", frames.count >= 7, let key = Curve.encode(frames[6]) else {
            noteRefusal(address: address, key: nil, mechanism: mechanism)
            return answer("400", "CURVE required")
        }
        if let nodeKey, key == nodeKey {
            admittedNodes += 1
            logger.debug("admitted a cluster node", metadata: ["address": "\(address)"])
            return answer("200", "OK", user: ForwardedClient.nodeUserID)
        }
        guard let client = keyring.clientsByKey[key] else {
            noteRefusal(address: address, key: key, mechanism: mechanism)
            return answer("400", "unknown client key")
        }
        admitted += 1
        logger.debug("admitted a CURVE client", metadata: ["client": "\(client.name)", "address": "\(address)"])
        return answer("200", "OK", user: client.name)
    }

    /// Counts a refusal and logs it, at most once a minute per peer address (a client that
    /// retries every 100 ms must not flood the journal).
    private func noteRefusal(address: String, key: String?, mechanism: String) {
        refused += 1
        let host = address.isEmpty ? "-" : address
        let now = ContinuousClock.now
        if let last = lastLogged[host], now - last < .seconds(60) { return }
        if lastLogged.count >= 4096 { lastLogged.removeAll() }
        lastLogged[host] = now
        logger.warning(
            "refused a connection: its key is not in the client keys directory (logged once a minute per address)",
            metadata: [
                "address": "\(host)", "key": "\(key ?? "-")", "mechanism": "\(mechanism)", "refusedSoFar": "\(refused)",
            ])
    }
}

@available(*, unavailable)
extension ZAPHandler: Sendable {}
