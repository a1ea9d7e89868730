import ZeroMQ

/// One ZeroMQ socket of a client, connected to one endpoint, with bounded waits.
///
/// The only place RowCastClient calls the ZeroMQ wrapper, and the only place its errors
/// become ``RowCastClientError``s. Not thread-safe: owned by one client object.
final class ClientSocket {
    /// The endpoint connected to.
    let endpoint: String
    /// The wrapped socket.
    let socket: Socket
    /// A poller watching this socket for messages.
    private let poller = Poller()
    /// A poller watching this socket for room to send.
    private let sendPoller = Poller()
    /// Reports a refused connect or handshake at once, when asked for (tcp and ipc only).
    private var watch: ConnectionWatch?

    /// A socket of `type` on `context` (a new one when `nil`), configured by `configure`, a
    /// CURVE client when `curve` is given, connected to `endpoint`. With `watchConnection`,
    /// waits on it fail at once with `not_listening` or `handshake_failed` when the transport
    /// tells that the daemon is not there or refused the handshake (``ConnectionWatch``).
    init(
        context: Context?, type: SocketType, endpoint: String, curve: CurveCredentials? = nil,
        watchConnection: Bool = false,
        configure: (Socket) throws(ZeroMQError) -> Void = { _ in }
    ) throws(RowCastClientError) {
        self.endpoint = endpoint
        do {
            socket = try Socket(context: context ?? Context(), type: type)
        } catch {
            throw .socket(error, endpoint: endpoint, doing: "creating a socket for")
        }
        do {
            try socket.setOption(.linger, 0)
            try configure(socket)
            try curve?.apply(to: socket)
            if watchConnection, ConnectionWatch.canWatch(endpoint) {
                watch = try ConnectionWatch(socket: socket, endpoint: endpoint)
            }
            try socket.connect(endpoint)
        } catch {
            watch?.close()
            socket.close()
            throw .socket(error, endpoint: endpoint, doing: "connecting to")
        }
        poller.register(socket)
        sendPoller.register(socket, for: .writable)
        if let watch {
            poller.register(watch.monitor.socket)
            sendPoller.register(watch.monitor.socket)
        }
    }

    deinit {
        watch?.close()
        socket.close()
    }

    /// Connects the socket to `other` as well (a SUB socket then receives from both), with the
    /// same options and CURVE credentials.
    func connect(also other: String) throws(RowCastClientError) {
        do {
            try socket.connect(other)
        } catch {
            throw .socket(error, endpoint: other, doing: "connecting to")
        }
    }

    /// Sends one message; false when it could not be queued before `deadline`.
    func send(_ frames: [[UInt8]], deadline: Deadline) throws(RowCastClientError) -> Bool {
        while true {
            do {
                if try socket.send(frames, dontWait: true) { return true }
            } catch {
                throw .socket(error, endpoint: endpoint, doing: "sending to")
            }
            try watch?.check()
            if deadline.hasPassed { return false }
            do {
                _ = try sendPoller.poll(timeoutMilliseconds: deadline.remainingMilliseconds)
            } catch {
                throw .socket(error, endpoint: endpoint, doing: "waiting to send to")
            }
        }
    }

    /// The next message, or `nil` when none arrived before `deadline`.
    func receive(deadline: Deadline) throws(RowCastClientError) -> [[UInt8]]? {
        while true {
            if let frames = try receiveNow() { return frames }
            try watch?.check()
            if deadline.hasPassed { return nil }
            do {
                _ = try poller.poll(timeoutMilliseconds: deadline.remainingMilliseconds)
            } catch {
                throw .socket(error, endpoint: endpoint, doing: "waiting for a message from")
            }
        }
    }

    /// A message that is already waiting, or `nil`.
    func receiveNow() throws(RowCastClientError) -> [[UInt8]]? {
        do {
            return try socket.receiveMultipart(dontWait: true)
        } catch {
            throw .socket(error, endpoint: endpoint, doing: "receiving from")
        }
    }

    /// Closes the socket now, dropping unsent messages after `linger`.
    func close(linger: Duration = .zero) {
        watch?.close()
        watch = nil
        try? socket.setOption(.linger, Int(linger.seconds * 1000))
        socket.close()
    }
}

@available(*, unavailable)
extension ClientSocket: Sendable {}

extension ClientSocket {
    /// Waits until one of `sockets` has a message (or a watched connection an event) or
    /// `deadline` passes.
    static func wait(for sockets: [ClientSocket], deadline: Deadline) throws(RowCastClientError) {
        let poller = Poller()
        for socket in sockets {
            poller.register(socket.socket)
            // A connection event wakes the wait too, so that a refusal is seen at once.
            if let watch = socket.watch { poller.register(watch.monitor.socket) }
        }
        do {
            _ = try poller.poll(timeoutMilliseconds: deadline.remainingMilliseconds)
        } catch {
            throw .socket(
                error, endpoint: sockets.map(\.endpoint).joined(separator: " and "), doing: "waiting for messages from")
        }
    }
}

extension ClientSocket {
    /// A new ZeroMQ context.
    static func makeContext() throws(RowCastClientError) -> Context {
        do {
            return try Context()
        } catch {
            throw RowCastClientError(code: "socket_error", message: "cannot create a ZeroMQ context: \(error)")
        }
    }
}
