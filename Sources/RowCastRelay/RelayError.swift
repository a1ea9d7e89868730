import ZeroMQ

/// Why a relay could not start or stopped: names the socket, the endpoint and libzmq's reason.
public struct RelayError: Error, Sendable, CustomStringConvertible {
    /// The message, one line.
    public let message: String

    /// An error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// A socket could not `action` (e.g. "bind its publish endpoint (XPUB) to") `endpoint`.
    static func socket(_ error: ZeroMQError, _ action: String, _ endpoint: String) -> RelayError {
        RelayError("rowcast relay: cannot \(action) \(endpoint): \(error.message)")
    }

    /// The message.
    public var description: String { message }
}
