import CZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A libzmq context: the I/O threads and the inproc namespace that sockets are created in.
///
/// Create one per process and share it. Every `Socket` keeps its context alive, so the context is
/// terminated only after all of its sockets have been released.
///
/// `@unchecked Sendable` without a lock because libzmq contexts are thread-safe: `zmq_socket`,
/// `zmq_ctx_shutdown` and `zmq_ctx_term` may be called from any thread, and the handle never changes.
public final class Context: @unchecked Sendable {
    /// The `void *` returned by `zmq_ctx_new`; valid until `deinit`.
    let handle: UnsafeMutableRawPointer

    /// Creates a context with libzmq's defaults (one I/O thread).
    public init() throws(ZeroMQError) {
        guard let handle = zmq_ctx_new() else {
            throw ZeroMQError.fromErrno(operation: "create context")
        }
        self.handle = handle
    }

    /// Makes every blocking call on this context's sockets, in any thread, fail with `ETERM`
    /// (`ZeroMQError.isTerminated`), and makes new sockets fail to open. Sockets must still be closed.
    ///
    /// Safe to call more than once and from any thread; use it to stop threads blocked in
    /// `receive` or `poll` during shutdown.
    public func shutdown() {
        _ = zmq_ctx_shutdown(handle)
    }

    /// Terminates the context with `zmq_ctx_term`, retried if a signal interrupts it.
    ///
    /// This runs only after every socket of the context is closed (sockets keep the context alive),
    /// but `zmq_ctx_term` still waits for each closed socket's linger period: with libzmq's
    /// default linger (infinite) and undelivered messages it never returns. Set `linger` on sockets.
    deinit {
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }
}
