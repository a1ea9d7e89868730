import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

extension RowCastClientError {
    /// A connect to `endpoint` was refused: nothing listens there, or (for an ipc socket
    /// file that exists but this user may not use) permission was denied.
    public static func notListening(endpoint: String) -> RowCastClientError {
        if let path = ipcPath(endpoint), access(path, F_OK) == 0, access(path, R_OK | W_OK) != 0 {
            return RowCastClientError(
                code: "permission_denied",
                message: "cannot connect to \(endpoint): this user may not use the socket \(path) (permission denied); "
                    + "rowcastd's ipc sockets are for the group in its socket_group setting (rowcast when installed): add the user to it"
            )
        }
        let what = endpoint.hasPrefix("ipc://") ? "the socket path" : "the host and port"
        return RowCastClientError(
            code: "not_listening",
            message:
                "nothing is listening at \(endpoint) (the connection was refused): is rowcastd running, and is \(what) right? "
                + "rowcastd prints its endpoints in its ready line; pass the right endpoint (--control, or ROWCAST_CONTROL)"
        )
    }

    /// The daemon at `endpoint` refused the ZeroMQ handshake (`event` is a handshake failure).
    static func handshakeFailed(endpoint: String, event: SocketEvent) -> RowCastClientError {
        let reason: String
        if event.kind.contains(.handshakeFailedAuth) {
            reason =
                "rowcastd refused this client's CURVE key (ZAP status \(event.value)): is its public key in the daemon's client keys directory, and was rowcastd reloaded since it was added?"
        } else {
            let detail = event.kind.contains(.handshakeFailedProtocol) ? " (ZeroMQ protocol error \(event.value))" : ""
            reason =
                "the handshake failed\(detail): if rowcastd requires CURVE there, pass --server-key (its server.pub) and --key; "
                + "if you did, check that --server-key is that daemon's public key; and check that what listens there is rowcastd"
        }
        return RowCastClientError(code: "handshake_failed", message: "connecting to \(endpoint): \(reason)")
    }

    /// The socket file of an `ipc://` endpoint; nil for other transports and abstract sockets.
    static func ipcPath(_ endpoint: String) -> String? {
        guard endpoint.hasPrefix("ipc://") else { return nil }
        let path = String(endpoint.dropFirst("ipc://".count))
        return path.isEmpty || path.hasPrefix("@") ? nil : path
    }
}
