import ZeroMQ

/// Watches a client socket's connection through a ZeroMQ socket monitor, so that a daemon that
/// is not there, or that refuses the handshake, is reported at once instead of after the
/// reply timeout.
///
/// Only a refusal before the first connection counts: once connected, a dropped connection is
/// left to the reply timeout as before (the daemon may be restarting). Not thread-safe: owned
/// by one ``ClientSocket``.
final class ConnectionWatch {
    /// The monitor of the watched socket.
    let monitor: SocketMonitor
    /// The endpoint watched, for messages.
    private let endpoint: String
    /// Whether the connection was established at least once.
    private var everConnected = false

    /// Whether `endpoint` uses a transport whose connect can be refused (tcp, ipc).
    static func canWatch(_ endpoint: String) -> Bool {
        endpoint.hasPrefix("tcp://") || endpoint.hasPrefix("ipc://")
    }

    /// Starts watching `socket`, which is about to connect to `endpoint`.
    init(socket: Socket, endpoint: String) throws(ZeroMQError) {
        monitor = try SocketMonitor(watching: socket)
        self.endpoint = endpoint
    }

    /// Reads the events reported so far; throws `not_listening` when a connect attempt failed
    /// (closed or retried) before any connection was made, and `handshake_failed` when the
    /// daemon refused the handshake.
    func check() throws(RowCastClientError) {
        while true {
            let event: SocketEvent?
            do {
                event = try monitor.nextEvent()
            } catch {
                return  // The watch is a convenience: the reply timeout still bounds the wait.
            }
            guard let event else { return }
            if event.kind.contains(.connected) || event.kind.contains(.handshakeSucceeded) {
                everConnected = true
            } else if !event.kind.intersection([.connectRetried, .closed]).isEmpty, !everConnected {
                // A connect attempt ended without a connection: closed, then retried (or not,
                // on a socket that does not reconnect by itself).
                throw .notListening(endpoint: endpoint)
            } else if !event.kind.intersection(.handshakeFailed).isEmpty {
                throw .handshakeFailed(endpoint: endpoint, event: event)
            }
        }
    }

    /// Stops watching.
    func close() { monitor.close() }
}

@available(*, unavailable)
extension ConnectionWatch: Sendable {}
