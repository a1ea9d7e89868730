import CZeroMQ

/// One ZeroMQ socket: bind or connect it, set options, send and receive frames of bytes.
///
/// A socket belongs to the thread that uses it: libzmq sockets are not thread-safe, so `Socket`
/// is not `Sendable`. Create it on the thread (or in the isolation domain) that owns it.
///
/// Every method throws `ZeroMQError` with libzmq's errno and text. After `close()` every method
/// throws an error with `ENOTSOCK` and the message "socket is closed"; nothing crashes.
///
/// libzmq's default linger is infinite: a closed socket with undelivered messages keeps the
/// context from terminating. Set `SocketOption.linger` explicitly on every socket.
public final class Socket {
    /// The context this socket was created in; kept alive until the socket is released.
    public let context: Context
    /// The pattern this socket was created with.
    public let type: SocketType
    /// The libzmq socket, or nil once closed.
    private(set) var handle: UnsafeMutableRawPointer?
    /// One `zmq_msg_t` reused by every receive, so receiving allocates only the frames it returns.
    let message: UnsafeMutablePointer<zmq_msg_t>

    /// Opens a socket of `type` in `context`.
    public init(context: Context, type: SocketType) throws(ZeroMQError) {
        let operation = "open \(type) socket"
        // errno is read inside the lock: unlocking may set it.
        let (opened, error) = try context.withLiveHandle(operation: operation) { context in
            let opened = zmq_socket(context, type.rawValue)
            return (opened, opened == nil ? zmq_errno() : 0)
        }
        guard let handle = opened else { throw ZeroMQError(errno: error, operation: operation) }
        self.context = context
        self.type = type
        self.handle = handle
        self.message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
    }

    /// Closes the socket (`zmq_close`); pending outgoing messages are kept for the linger period.
    /// Calling it again does nothing.
    public func close() {
        guard let handle else { return }
        self.handle = nil
        _ = zmq_close(handle)
    }

    /// True once `close()` has run.
    public var isClosed: Bool { handle == nil }

    /// Closes the socket if it is still open.
    deinit {
        close()
        message.deallocate()
    }

    /// The open libzmq socket, or the "socket is closed" error for `operation`.
    func openHandle(_ operation: @autoclosure () -> String) throws(ZeroMQError) -> UnsafeMutableRawPointer {
        guard let handle else { throw ZeroMQError.socketClosed(operation: operation()) }
        return handle
    }

    /// Accepts connections on `endpoint`, e.g. `tcp://127.0.0.1:7701`, `tcp://127.0.0.1:*` or `inproc://name`.
    public func bind(_ endpoint: String) throws(ZeroMQError) {
        let handle = try openHandle("bind \(endpoint)")
        guard zmq_bind(handle, endpoint) == 0 else {
            throw ZeroMQError.fromErrno(operation: "bind \(endpoint)")
        }
    }

    /// Connects to `endpoint`. For tcp this returns at once; libzmq connects and reconnects in the background.
    public func connect(_ endpoint: String) throws(ZeroMQError) {
        let handle = try openHandle("connect \(endpoint)")
        guard zmq_connect(handle, endpoint) == 0 else {
            throw ZeroMQError.fromErrno(operation: "connect \(endpoint)")
        }
    }

    /// Stops accepting on `endpoint`, which must be the exact string bound (or `lastEndpoint` for a wildcard).
    public func unbind(_ endpoint: String) throws(ZeroMQError) {
        let handle = try openHandle("unbind \(endpoint)")
        guard zmq_unbind(handle, endpoint) == 0 else {
            throw ZeroMQError.fromErrno(operation: "unbind \(endpoint)")
        }
    }

    /// Disconnects from `endpoint`, which must be the exact string connected.
    public func disconnect(_ endpoint: String) throws(ZeroMQError) {
        let handle = try openHandle("disconnect \(endpoint)")
        guard zmq_disconnect(handle, endpoint) == 0 else {
            throw ZeroMQError.fromErrno(operation: "disconnect \(endpoint)")
        }
    }

    /// The endpoint most recently bound or connected (`ZMQ_LAST_ENDPOINT`), with the real port
    /// after binding `tcp://127.0.0.1:*`; empty if none.
    public var lastEndpoint: String {
        get throws(ZeroMQError) {
            let handle = try openHandle("getsockopt ZMQ_LAST_ENDPOINT")
            var buffer = [CChar](repeating: 0, count: 1024)
            var size = buffer.count
            let rc = buffer.withUnsafeMutableBytes { zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, $0.baseAddress, &size) }
            guard rc == 0 else { throw ZeroMQError.fromErrno(operation: "getsockopt ZMQ_LAST_ENDPOINT") }
            return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}

/// A socket belongs to one thread: libzmq sockets must not be used from two threads.
@available(*, unavailable)
extension Socket: Sendable {}
