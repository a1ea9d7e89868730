import CZeroMQ
import Synchronization

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
/// `@unchecked Sendable` because libzmq contexts are thread-safe: `zmq_socket`,
/// `zmq_ctx_shutdown` and `zmq_ctx_term` may be called from any thread, and the handle never
/// changes; only whether it has been terminated is guarded by a lock.
public final class Context: @unchecked Sendable {
    /// The `void *` returned by `zmq_ctx_new`; valid until terminated.
    let handle: UnsafeMutableRawPointer

    /// Whether `zmq_ctx_term` has returned for `handle` (it must run exactly once).
    private let terminated = Mutex(false)

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
        terminated.withLock { done in
            if !done { _ = zmq_ctx_shutdown(handle) }
        }
    }

    /// Calls `body` with the libzmq context while it is not terminated (a terminated handle
    /// has been freed by libzmq); fails with `ETERM` after ``terminate()``.
    func withLiveHandle<Result>(
        operation: String, _ body: (UnsafeMutableRawPointer) -> Result
    ) throws(ZeroMQError) -> Result {
        let result: Result? = terminated.withLock { done in done ? nil : body(handle) }
        guard let result else { throw ZeroMQError(errno: ETERM, operation: operation) }
        return result
    }

    /// Terminates the context now with `zmq_ctx_term` (retried if a signal interrupts it):
    /// returns once every socket of the context is closed and its linger period is over, and
    /// libzmq has let go of every endpoint those sockets bound. Calling it again does nothing.
    ///
    /// Use it where a caller must know the endpoints are free (a component that is stopped and
    /// restarted on the same ports), rather than relying on when the last reference goes: a
    /// thread that has finished its work may still hold one for a moment. It blocks while a
    /// socket of this context is still open, so close them first; `shutdown()` and new sockets
    /// on other threads wait for it (a thread must not need either to close its sockets).
    public func terminate() {
        terminated.withLock { done in
            guard !done else { return }
            while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
            done = true
        }
    }

    /// Terminates the context if ``terminate()`` has not (sockets keep the context alive, so
    /// this runs after every socket is released). `zmq_ctx_term` still waits for each closed
    /// socket's linger period: with libzmq's default linger (infinite) and undelivered messages
    /// it never returns. Set `linger` on sockets.
    deinit {
        terminate()
    }
}
