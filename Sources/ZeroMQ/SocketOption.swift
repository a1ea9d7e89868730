import CZeroMQ

/// A typed key for a socket option, used with `Socket.setOption(_:_:)` and `Socket.getOption(_:)`:
/// `try socket.setOption(.linger, 0)`.
///
/// `Value` is the Swift type of the option: `Int` for C `int` options, `Int64`, `Bool` or `[UInt8]`.
public struct SocketOption<Value>: Sendable, Hashable, CustomStringConvertible {
    /// The `ZMQ_*` option number.
    public let code: Int32
    /// The libzmq name, e.g. `ZMQ_LINGER`, used in error messages.
    public let name: String
    /// True when libzmq can only set the option: reading it throws `EINVAL`.
    public let isWriteOnly: Bool

    /// A key for option `code`, named `name` in errors; for `ZMQ_*` options this module does not name.
    public init(code: Int32, name: String, isWriteOnly: Bool = false) {
        self.code = code
        self.name = name
        self.isWriteOnly = isWriteOnly
    }

    /// The libzmq name.
    public var description: String { name }
}

extension SocketOption where Value == Int {
    /// Milliseconds that undelivered messages are kept after `close()` (`ZMQ_LINGER`);
    /// 0 discards them, -1 waits for ever. libzmq's default is -1: set it explicitly.
    public static var linger: Self { .init(code: ZMQ_LINGER, name: "ZMQ_LINGER") }
    /// Most messages queued per peer for sending (`ZMQ_SNDHWM`, default 1000; 0 means no limit).
    public static var sendHighWaterMark: Self { .init(code: ZMQ_SNDHWM, name: "ZMQ_SNDHWM") }
    /// Most messages queued per peer on receipt (`ZMQ_RCVHWM`, default 1000; 0 means no limit).
    public static var receiveHighWaterMark: Self { .init(code: ZMQ_RCVHWM, name: "ZMQ_RCVHWM") }
    /// Milliseconds a blocking receive waits before returning nil (`ZMQ_RCVTIMEO`; -1, the default, waits for ever).
    public static var receiveTimeout: Self { .init(code: ZMQ_RCVTIMEO, name: "ZMQ_RCVTIMEO") }
    /// Milliseconds a blocking send waits before returning false (`ZMQ_SNDTIMEO`; -1, the default, waits for ever).
    public static var sendTimeout: Self { .init(code: ZMQ_SNDTIMEO, name: "ZMQ_SNDTIMEO") }
    /// Milliseconds before a broken or refused connection is tried again (`ZMQ_RECONNECT_IVL`,
    /// default 100); -1 never reconnects, so a socket lives for one connection at most.
    public static var reconnectInterval: Self { .init(code: ZMQ_RECONNECT_IVL, name: "ZMQ_RECONNECT_IVL") }
}

extension SocketOption where Value == Int64 {
    /// Largest inbound message in bytes (`ZMQ_MAXMSGSIZE`; -1, the default, means no limit).
    ///
    /// Enforced by the wire decoder only, so not on `inproc://`. Over tcp a peer that sends a
    /// bigger message is disconnected: that message and whatever else was in flight on the
    /// connection are lost, and the peer reconnects.
    public static var maxMessageSize: Self { .init(code: ZMQ_MAXMSGSIZE, name: "ZMQ_MAXMSGSIZE") }
}

extension SocketOption where Value == Bool {
    /// ROUTER only: sending to an unknown routing id throws `EHOSTUNREACH` instead of dropping
    /// the message silently (`ZMQ_ROUTER_MANDATORY`). Write-only.
    public static var routerMandatory: Self {
        .init(code: ZMQ_ROUTER_MANDATORY, name: "ZMQ_ROUTER_MANDATORY", isWriteOnly: true)
    }
    /// Queue outgoing messages only to completed connections (`ZMQ_IMMEDIATE`, default false).
    public static var immediate: Self { .init(code: ZMQ_IMMEDIATE, name: "ZMQ_IMMEDIATE") }
    /// This socket is a CURVE server (`ZMQ_CURVE_SERVER`): peers must connect with CURVE and
    /// this socket's public key; set `curveSecretKey` too. Set before binding.
    public static var curveServer: Self { .init(code: ZMQ_CURVE_SERVER, name: "ZMQ_CURVE_SERVER") }
    /// Refuse a handshake when no ZAP handler answers (`ZMQ_ZAP_ENFORCE_DOMAIN`, default
    /// false): without it, a CURVE server lets any key in unchecked while no handler is bound.
    /// A draft option of libzmq 4.3 (code 93, not in its stable header), which Debian's
    /// library carries; one built without draft options refuses it with `EINVAL`.
    public static var zapEnforceDomain: Self { .init(code: 93, name: "ZMQ_ZAP_ENFORCE_DOMAIN") }
    /// XPUB only: subscriptions are passed up to the application, which applies them itself
    /// with `subscribe`/`unsubscribe` on the XPUB socket (`ZMQ_XPUB_MANUAL`). Write-only.
    public static var xpubManual: Self { .init(code: ZMQ_XPUB_MANUAL, name: "ZMQ_XPUB_MANUAL", isWriteOnly: true) }
    /// XPUB only: pass up every subscription message, duplicates included (`ZMQ_XPUB_VERBOSE`). Write-only.
    public static var xpubVerbose: Self { .init(code: ZMQ_XPUB_VERBOSE, name: "ZMQ_XPUB_VERBOSE", isWriteOnly: true) }
}

extension SocketOption where Value == [UInt8] {
    /// The identity a ROUTER peer sees for this socket (`ZMQ_ROUTING_ID`, 1 to 255 bytes).
    /// Set it before connecting.
    public static var routingID: Self { .init(code: ZMQ_ROUTING_ID, name: "ZMQ_ROUTING_ID") }
    /// This socket's CURVE public key (`ZMQ_CURVE_PUBLICKEY`): 32 bytes, or 40 of Z85.
    public static var curvePublicKey: Self { .init(code: ZMQ_CURVE_PUBLICKEY, name: "ZMQ_CURVE_PUBLICKEY") }
    /// This socket's CURVE secret key (`ZMQ_CURVE_SECRETKEY`): 32 bytes, or 40 of Z85.
    public static var curveSecretKey: Self { .init(code: ZMQ_CURVE_SECRETKEY, name: "ZMQ_CURVE_SECRETKEY") }
    /// A CURVE client's idea of the server's public key (`ZMQ_CURVE_SERVERKEY`); setting it
    /// makes the socket a CURVE client. Set before connecting.
    public static var curveServerKey: Self { .init(code: ZMQ_CURVE_SERVERKEY, name: "ZMQ_CURVE_SERVERKEY") }
    /// The ZAP domain of this socket (`ZMQ_ZAP_DOMAIN`), passed to the ZAP handler.
    public static var zapDomain: Self { .init(code: ZMQ_ZAP_DOMAIN, name: "ZMQ_ZAP_DOMAIN") }
}
