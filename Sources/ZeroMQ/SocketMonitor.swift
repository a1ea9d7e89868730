import CZeroMQ

/// Reports the connection events of one socket (`zmq_socket_monitor`): libzmq publishes them on
/// an inproc PAIR socket, which this monitor connects to and reads without blocking.
///
/// Start it before `connect` so that no event is missed. Poll ``socket`` with the watched
/// socket to wake on events, then drain them with ``nextEvent()``. Not `Sendable`: it belongs
/// to the thread that owns the watched socket.
public final class SocketMonitor {
    /// The PAIR socket the events arrive on (register it with a ``Poller``).
    public let socket: Socket
    /// The socket watched; kept alive while the monitor runs.
    private let watched: Socket

    /// Starts reporting `events` of `watched`.
    public init(watching watched: Socket, events: SocketEvent.Kind = .connection) throws(ZeroMQError) {
        let handle = try watched.openHandle("monitor socket")
        // Unique among live sockets of the context: the watched socket's own address.
        let address = "inproc://zeromq-monitor-\(UInt(bitPattern: handle))"
        guard zmq_socket_monitor(handle, address, events.rawValue) == 0 else {
            throw ZeroMQError.fromErrno(operation: "monitor socket on \(address)")
        }
        self.watched = watched
        do {
            socket = try Socket(context: watched.context, type: .pair)
            try socket.setOption(.linger, 0)
            try socket.connect(address)
        } catch {
            _ = zmq_socket_monitor(handle, nil, 0)
            throw error
        }
    }

    /// The next event already reported, or nil when none is waiting.
    public func nextEvent() throws(ZeroMQError) -> SocketEvent? {
        while let frames = try socket.receiveMultipart(dontWait: true) {
            if let event = SocketEvent(frames: frames) { return event }
        }
        return nil
    }

    /// Stops monitoring and closes the event socket; calling it again does nothing.
    public func close() {
        guard !socket.isClosed else { return }
        if let handle = watched.handle { _ = zmq_socket_monitor(handle, nil, 0) }
        socket.close()
    }

    deinit { close() }
}

@available(*, unavailable)
extension SocketMonitor: Sendable {}
