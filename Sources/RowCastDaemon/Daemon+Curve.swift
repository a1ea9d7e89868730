import Logging
import RowCastEngine
import RowCastJSON
import ZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// CURVE on the TCP endpoints (docs/OPERATIONS.md, "Who can connect"): the server key pair,
/// the ZAP handler with the client keyring, and what `status` says about them.
extension Daemon {
    /// With `curve: true`: checks that libzmq has CURVE, loads (or generates) the server key
    /// pair, reads the client keys and binds the ZAP handler, before any socket binds. One
    /// engine loop of several takes the pair and keys its group loaded, and binds no handler:
    /// the front's admits the connections (`EngineThreadGroup`).
    func startCurve(context: Context) throws {
        if let shared = slot?.curve {
            serverKeyPair = shared.keyPair
            zap = ZAPHandler(keyring: shared.keyring, logger: logger)
            return
        }
        guard configuration.curve else { return }
        let keyPair = try Self.loadServerKeyPair(configuration)
        serverKeyPair = keyPair
        let keyring = Self.loadKeyring(configuration.curveClientsDirectory, logger: logger)
        // A cluster node admits the others by the server key they share (docs/SECURITY.md,
        // "Cluster nodes").
        zap = try ZAPHandler(
            context: context, keyring: keyring, nodeKey: configuration.nodeName.isEmpty ? nil : keyPair.publicKey,
            logger: logger)
        Self.logCurveOn(keyPair: keyPair, keyring: keyring, configuration: configuration, logger: logger)
    }

    /// Checks that libzmq has CURVE and loads (or generates) the server key pair of
    /// `configuration`.
    static func loadServerKeyPair(_ configuration: DaemonConfiguration) throws -> ServerKeyPair {
        guard Curve.isAvailable else {
            throw KeyFileError(
                file: ServerKeyPair.path(for: configuration),
                problem:
                    "curve: true, but this libzmq has no CURVE (zmq_has(\"curve\") is false); install a libzmq built with libsodium (Debian's libzmq5 is)"
            )
        }
        return try ServerKeyPair.loadOrCreate(ServerKeyPair.path(for: configuration))
    }

    /// Logs that CURVE is on, with the server key and the clients admitted.
    static func logCurveOn(
        keyPair: ServerKeyPair, keyring: ClientKeyring, configuration: DaemonConfiguration, logger: Logger
    ) {
        logger.info(
            "CURVE on: TCP endpoints admit only the clients in the keys directory",
            metadata: [
                "serverKey": "\(keyPair.publicKey)", "keyFile": "\(keyPair.file)",
                "clients": "\(keyring.clientsByName.keys.sorted().joined(separator: ","))",
                "directory": "\(configuration.curveClientsDirectory)",
            ])
    }

    /// Makes `socket` a CURVE server checked by the ZAP handler when CURVE is on and
    /// `endpoint` is TCP (or WebSocket); `ipc://` stays protected by its file's permissions.
    func secure(_ socket: Socket, endpoint: String) throws {
        try Self.secure(socket, endpoint: endpoint, keyPair: serverKeyPair)
    }

    /// Makes `socket` a CURVE server with `keyPair` (nil: CURVE off) when `endpoint` is TCP
    /// (or WebSocket).
    static func secure(_ socket: Socket, endpoint: String, keyPair: ServerKeyPair?) throws {
        guard let keyPair, usesCurve(endpoint) else { return }
        try socket.setOption(.curveServer, true)
        try socket.setOption(.curveSecretKey, Array(keyPair.secretKey.utf8))
        try socket.setOption(.zapDomain, Array(ZAPHandler.domain.utf8))
        // Closed, not open, when the ZAP handler is gone (a stop, a failure): without it,
        // libzmq admits any key with no User-Id, which rowcastd treats as unchecked. A library
        // without libzmq's draft options refuses the option (EINVAL); every path that closes
        // the handler closes the public sockets first, so this is a second wall, not the only.
        do {
            try socket.setOption(.zapEnforceDomain, true)
        } catch {
            guard error.errno == EINVAL else { throw error }
        }
    }

    /// Whether CURVE applies to `endpoint`: TCP and WebSocket, not `ipc://` or `inproc://`.
    static func usesCurve(_ endpoint: String) -> Bool {
        !(endpoint.hasPrefix("ipc://") || endpoint.hasPrefix("inproc://"))
    }

    /// Reads the client keys in `directory`, logging every refused file with its fix to
    /// `logger` (nil: not logged).
    static func loadKeyring(_ directory: String, logger: Logger?) -> ClientKeyring {
        let keyring = ClientKeyring.load(directory: directory)
        for problem in keyring.problems {
            logger?.error("refused client key file: \(problem)", metadata: ["directory": "\(directory)"])
        }
        return keyring
    }

    /// Answers waiting ZAP requests; keeps `status` up to date.
    func serveZAP(engine: Engine) throws {
        guard let zap else { return }
        let before = (zap.admitted, zap.refused, zap.admittedNodes)
        try zap.serve()
        if before != (zap.admitted, zap.refused, zap.admittedNodes) { updateCurveStatus(engine: engine) }
    }

    /// The `curve` member of `status`.
    func updateCurveStatus(engine: Engine) {
        guard let zap, let serverKeyPair else { return }
        engine.statusMembers["curve"] = [
            "serverKey": .string(serverKeyPair.publicKey),
            "clients": .array(zap.keyring.clientsByName.keys.sorted().map(JSONValue.string)),
            "keyProblems": .array(zap.keyring.problems.map(JSONValue.string)),
            "admitted": .number(Double(zap.admitted)),
            "refused": .number(Double(zap.refused)),
            "refusedSubscriptions": .number(Double(refusedSubscriptions)),
            "admittedNodes": .number(Double(zap.admittedNodes)),
            "refusedClientFrames": .number(Double(refusedClientFrames)),
        ]
    }

    /// Reload: the client keys the reload read (`keyring`, nil with CURVE off) take over.
    /// Connections already admitted stay; a removed client's next connection is refused (and
    /// its permissions are gone at once). Behind the front of several loops, its ZAP handler
    /// and the publish proxy take them once every loop has (`SharedReload`).
    func reloadKeyring(_ keyring: ClientKeyring?, engine: Engine) -> JSONValue {
        guard let zap, let keyring else { return .null }
        zap.keyring = keyring
        engine.accessCheck = KeyringAccess(keyring: zap.keyring)
        updateCurveStatus(engine: engine)
        return [
            "clients": .array(zap.keyring.clientsByName.keys.sorted().map(JSONValue.string)),
            "keyProblems": .array(zap.keyring.problems.map(JSONValue.string)),
        ]
    }

    /// With CURVE (XPUB, manual subscriptions): applies each waiting subscription whose client
    /// may read what it names (``SubscriptionFilter``), and every unsubscription. A refused
    /// subscription is dropped (the client receives nothing of it), counted and logged.
    func serveSubscriptions(on publish: Socket, engine: Engine) throws {
        guard let zap else {
            // libzmq applied them already; a feed's own topic gets its position.
            while let frames = try publish.receiveMultipart(dontWait: true) {
                guard let frame = frames.first, frame.first == 1 else { continue }
                if let position = positions.announcement(forSubscription: Array(frame.dropFirst())) {
                    try publishAll([position], on: publish)
                }
            }
            return
        }
        while let (frames, userID) = try publish.receiveMultipart(property: Self.userIDProperty, dontWait: true) {
            guard let frame = frames.first, let kind = frame.first, kind == 0 || kind == 1 else { continue }
            let prefix = Array(frame.dropFirst())
            if kind == 0 {
                try publish.unsubscribe(prefix)
                continue
            }
            let refused = Self.refuses(subscription: prefix, userID: userID, keyring: zap.keyring, logger: logger) {
                refusedSubscriptions += 1
                updateCurveStatus(engine: engine)
                return refusedSubscriptions
            }
            if refused { continue }
            try publish.subscribe(prefix)
            if let position = positions.announcement(forSubscription: prefix) {
                try publishAll([position], on: publish)
            }
        }
    }
}

extension Daemon {
    /// The message property that names a CURVE client: the User-Id the ZAP handler gave its
    /// connection.
    static let userIDProperty = "User-Id"

    /// The property to ask received messages for: the User-Id with CURVE on, nothing without.
    var principalProperty: String? { zap == nil ? nil : Self.userIDProperty }

    /// The client a connection's User-Id names; nil when it has none (empty: an ipc://
    /// connection, which is not checked).
    static func principal(_ userID: String?) -> String? {
        userID.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the client a subscription's `userID` names may not read `prefix` (nil, an
    /// `ipc://` connection: unchecked). A refusal is counted by `countRefusal`, which returns
    /// the count so far, and logged: the first 100, then every 1,000th, so a flood logs
    /// sparsely. One engine loop's publish socket and the proxy of several both ask it.
    static func refuses(
        subscription prefix: [UInt8], userID: String?, keyring: ClientKeyring, logger: Logger,
        countRefusal: () -> Int
    ) -> Bool {
        guard let client = principal(userID),
            !SubscriptionFilter.allows(prefix, principal: client, access: KeyringAccess(keyring: keyring))
        else { return false }
        let refused = countRefusal()
        if refused <= 100 || refused.isMultiple(of: 1000) {
            logger.notice(
                "refused a subscription: the client may not read it",
                metadata: [
                    "client": "\(client)", "topic": "\(String(decoding: prefix.filter { $0 != 0 }, as: UTF8.self))",
                ])
        }
        return true
    }
}
