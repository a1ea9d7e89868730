import CZeroMQ

/// Readiness of a socket: what `Poller` waits for and what `Socket.events` reports.
public struct PollEvents: OptionSet, Sendable, Hashable {
    /// The `ZMQ_POLLIN` / `ZMQ_POLLOUT` bits.
    public let rawValue: Int16

    /// Events from their libzmq bits.
    public init(rawValue: Int16) {
        self.rawValue = rawValue
    }

    /// At least one whole message can be received without blocking (`ZMQ_POLLIN`).
    public static let readable = PollEvents(rawValue: Int16(ZMQ_POLLIN))
    /// At least one message can be sent without blocking (`ZMQ_POLLOUT`).
    public static let writable = PollEvents(rawValue: Int16(ZMQ_POLLOUT))
    /// A plain file descriptor has an error or was hung up (`ZMQ_POLLERR`: `POLLERR`,
    /// `POLLHUP` or `POLLNVAL`); reading it then says which, or returns end of file.
    public static let error = PollEvents(rawValue: Int16(ZMQ_POLLERR))
}
