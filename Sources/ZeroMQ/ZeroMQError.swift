import CZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed libzmq call: the errno it set, what was being done, and libzmq's text for the errno.
///
/// The description reads `operation: message`, for example
/// `bind tcp://127.0.0.1:7701: Address already in use`.
public struct ZeroMQError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The errno value (POSIX, or one of libzmq's own such as `ETERM`).
    public let errno: Int32
    /// What was being done, naming the thing, e.g. `bind tcp://127.0.0.1:7701`.
    public let operation: String
    /// The reason in words, normally `zmq_strerror(errno)`.
    public let message: String

    /// An error for `errno` during `operation`, worded by `zmq_strerror`.
    public init(errno: Int32, operation: String) {
        self.init(errno: errno, operation: operation, message: String(cString: zmq_strerror(errno)))
    }

    /// An error for `errno` during `operation` with a message of the caller's choosing.
    public init(errno: Int32, operation: String, message: String) {
        self.errno = errno
        self.operation = operation
        self.message = message
    }

    /// The error libzmq just reported for the calling thread (`zmq_errno()`), during `operation`.
    public static func fromErrno(operation: String) -> ZeroMQError {
        ZeroMQError(errno: zmq_errno(), operation: operation)
    }

    /// The error thrown by any use of a socket after `close()`.
    static func socketClosed(operation: String) -> ZeroMQError {
        ZeroMQError(errno: ENOTSOCK, operation: operation, message: "socket is closed")
    }

    /// `operation: message`.
    public var description: String { "\(operation): \(message)" }

    /// True when a signal interrupted the call (`EINTR`); retrying is safe.
    public var isInterrupted: Bool { errno == EINTR }

    /// True when the call would have blocked (`EAGAIN`): nothing to receive, no room to send, or a timeout expired.
    public var isWouldBlock: Bool { errno == EAGAIN }

    /// True when the socket's context was shut down or terminated (`ETERM`); close the socket.
    public var isTerminated: Bool { errno == ETERM }
}
