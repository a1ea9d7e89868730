import CZeroMQ

/// One connection event of a monitored socket (`zmq_socket_monitor`): what happened, its
/// value (an errno, a file descriptor, a reconnect interval or a ZMTP status, by kind) and the
/// endpoint it happened on.
public struct SocketEvent: Sendable, Equatable, CustomStringConvertible {
    /// Kinds of event, as the `ZMQ_EVENT_*` bits; a set of them selects what a monitor reports.
    public struct Kind: OptionSet, Sendable, Hashable {
        /// The `ZMQ_EVENT_*` bits.
        public let rawValue: Int32
        /// Kinds from `ZMQ_EVENT_*` bits.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// A listening socket accepted a connection (the value is its file descriptor).
        public static let accepted = Kind(rawValue: ZMQ_EVENT_ACCEPTED)
        /// The TCP (or ipc) connection is established.
        public static let connected = Kind(rawValue: ZMQ_EVENT_CONNECTED)
        /// A connect is in progress (non-blocking connect); not an error.
        public static let connectDelayed = Kind(rawValue: ZMQ_EVENT_CONNECT_DELAYED)
        /// A connect attempt failed, or a connection dropped, and another is scheduled; the
        /// value is the interval in milliseconds.
        public static let connectRetried = Kind(rawValue: ZMQ_EVENT_CONNECT_RETRIED)
        /// The connection's file descriptor was closed.
        public static let closed = Kind(rawValue: ZMQ_EVENT_CLOSED)
        /// An established connection was broken.
        public static let disconnected = Kind(rawValue: ZMQ_EVENT_DISCONNECTED)
        /// The ZMTP handshake (and CURVE, if any) completed.
        public static let handshakeSucceeded = Kind(rawValue: ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
        /// The handshake failed without more detail (the peer closed, or a security mechanism
        /// failed before saying why).
        public static let handshakeFailedNoDetail = Kind(rawValue: ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL)
        /// The handshake failed on a protocol error (a CURVE box that does not open, say).
        public static let handshakeFailedProtocol = Kind(rawValue: ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
        /// The peer refused this socket's credentials (ZAP); the value is the ZAP status code.
        public static let handshakeFailedAuth = Kind(rawValue: ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)

        /// What a connecting client needs to tell whether its peer is there and accepts it.
        public static let connection: Kind = [
            .connected, .connectDelayed, .connectRetried, .closed, .disconnected, .handshakeSucceeded,
            .handshakeFailedNoDetail, .handshakeFailedProtocol, .handshakeFailedAuth,
        ]
        /// Any handshake failure.
        public static let handshakeFailed: Kind = [
            .handshakeFailedNoDetail, .handshakeFailedProtocol, .handshakeFailedAuth,
        ]
    }

    /// What happened (exactly one bit).
    public let kind: Kind
    /// The event's value: an errno, a file descriptor, a reconnect interval or a status code.
    public let value: Int32
    /// The endpoint the event concerns.
    public let endpoint: String

    /// An event from its parts.
    public init(kind: Kind, value: Int32, endpoint: String) {
        self.kind = kind
        self.value = value
        self.endpoint = endpoint
    }

    /// An event from the two frames a monitor socket delivers (version 1 format: a 16-bit
    /// event and a 32-bit value in native byte order, then the endpoint); nil when malformed.
    init?(frames: [[UInt8]]) {
        guard frames.count == 2, frames[0].count == 6 else { return nil }
        let header = frames[0]
        let event = header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0, as: UInt16.self) }
        let value = header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 2, as: Int32.self) }
        self.init(
            kind: Kind(rawValue: Int32(event)), value: value, endpoint: String(decoding: frames[1], as: UTF8.self))
    }

    /// "event 4 value 100 on tcp://127.0.0.1:7702".
    public var description: String { "event \(kind.rawValue) value \(value) on \(endpoint)" }
}
