import CZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Waits until one of several sockets (or plain file descriptors, such as a terminal or a pipe)
/// is ready (`zmq_poll`), for an event loop on one thread.
///
/// Register the loop's sockets once; each `poll` then reuses the same `zmq_pollitem_t` array and
/// allocates nothing. After `poll` returns, ask `isReadable(_:)` / `isWritable(_:)` per socket
/// (`events(ofFileDescriptor:)` per file descriptor).
///
/// ```swift
/// let poller = Poller()
/// poller.register(pull)
/// poller.register(router)
/// while running {
///     guard try poller.poll(timeoutMilliseconds: 100) > 0 else { continue }
///     if poller.isReadable(pull) { /* drain pull with receive(dontWait: true) */ }
///     if poller.isReadable(router) { /* ... */ }
/// }
/// ```
///
/// Not `Sendable`: it holds sockets, which belong to one thread.
public final class Poller {
    /// The registered sockets, in registration order, kept alive by the poller; `nil` for an
    /// entry that watches a plain file descriptor.
    private var sockets: [Socket?] = []
    /// One poll item per entry, same order; `socket` is refreshed on every poll.
    private var items: [zmq_pollitem_t] = []

    /// An empty poller.
    public init() {}

    /// How many sockets and file descriptors are registered.
    public var count: Int { sockets.count }

    /// Watches `socket` for `events`; registering a socket again replaces its events.
    public func register(_ socket: Socket, for events: PollEvents = .readable) {
        if let index = index(of: socket) {
            items[index].events = events.rawValue
            items[index].revents = 0
            return
        }
        sockets.append(socket)
        items.append(zmq_pollitem_t(socket: socket.handle, fd: 0, events: events.rawValue, revents: 0))
    }

    /// Watches the plain file descriptor `fileDescriptor` (a terminal, a pipe) for `events`;
    /// registering it again replaces its events.
    public func register(fileDescriptor: Int32, for events: PollEvents = .readable) {
        if let index = index(ofFileDescriptor: fileDescriptor) {
            items[index].events = events.rawValue
            items[index].revents = 0
            return
        }
        sockets.append(nil)
        items.append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: events.rawValue, revents: 0))
    }

    /// What the last `poll` found `fileDescriptor` ready for; empty if it is not registered.
    public func events(ofFileDescriptor fileDescriptor: Int32) -> PollEvents {
        guard let index = index(ofFileDescriptor: fileDescriptor) else { return [] }
        return PollEvents(rawValue: items[index].revents)
    }

    /// Stops watching `socket`; unknown sockets are ignored.
    public func unregister(_ socket: Socket) {
        guard let index = index(of: socket) else { return }
        sockets.remove(at: index)
        items.remove(at: index)
    }

    /// Stops watching the plain file descriptor `fileDescriptor`; unknown ones are ignored.
    public func unregister(fileDescriptor: Int32) {
        guard let index = index(ofFileDescriptor: fileDescriptor) else { return }
        sockets.remove(at: index)
        items.remove(at: index)
    }

    /// Waits until a registered socket is ready, at most `timeoutMilliseconds` (0 checks and
    /// returns at once, -1 waits for ever).
    ///
    /// - Returns: how many sockets are ready; 0 on timeout, and 0 when a signal interrupted the
    ///   wait (`EINTR`) so the loop can check its flags.
    /// - Throws: `ZeroMQError`: `ETERM` after `Context.shutdown()`, `ENOTSOCK` when a registered
    ///   socket was closed (unregister it first).
    public func poll(timeoutMilliseconds: Int) throws(ZeroMQError) -> Int {
        for index in items.indices {
            items[index].revents = 0
            guard let socket = sockets[index] else { continue }  // a plain file descriptor
            guard let handle = socket.handle else {
                throw ZeroMQError.socketClosed(operation: "poll (socket \(index + 1) of \(items.count))")
            }
            items[index].socket = handle
        }
        let ready = items.withUnsafeMutableBufferPointer { buffer in
            zmq_poll(buffer.baseAddress, Int32(buffer.count), timeoutMilliseconds)
        }
        if ready >= 0 { return Int(ready) }
        let error = ZeroMQError.fromErrno(operation: "poll")
        guard error.isInterrupted else { throw error }
        for index in items.indices { items[index].revents = 0 }
        return 0
    }

    /// What the last `poll` found `socket` ready for; empty if it is not registered.
    public func events(of socket: Socket) -> PollEvents {
        guard let index = index(of: socket) else { return [] }
        return PollEvents(rawValue: items[index].revents)
    }

    /// True when the last `poll` found a message waiting on `socket`.
    public func isReadable(_ socket: Socket) -> Bool {
        events(of: socket).contains(.readable)
    }

    /// True when the last `poll` found that `socket` can send without blocking.
    public func isWritable(_ socket: Socket) -> Bool {
        events(of: socket).contains(.writable)
    }

    /// The position of `socket` in the registration arrays.
    private func index(of socket: Socket) -> Int? {
        sockets.firstIndex { $0 === socket }
    }

    /// The position of the plain file descriptor `fileDescriptor` in the registration arrays.
    private func index(ofFileDescriptor fileDescriptor: Int32) -> Int? {
        items.indices.first { sockets[$0] == nil && items[$0].fd == fileDescriptor }
    }
}

/// A poller belongs to the one thread that owns its sockets.
@available(*, unavailable)
extension Poller: Sendable {}
