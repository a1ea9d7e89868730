import RowCastSupport

/// What one browser connection has still to be sent: a bounded queue of message texts.
///
/// The feed's hub offers every message to every connection without waiting; a connection
/// whose queue is full is marked overflowed and its queue finished, so a slow browser costs
/// at most `limit` queued messages (each a shared string) and never holds back the others.
/// Its writer then tells the browser and closes the connection; the browser resumes with
/// `since`. Thread-safe: the continuation is, and the flag is behind a lock.
public final class ConnectionOutbox: Sendable {
    /// The messages to send, in order.
    public let messages: AsyncStream<String>
    /// The writing side of ``messages``.
    private let continuation: AsyncStream<String>.Continuation
    /// Whether a message was refused because the queue was full.
    private let overflow = LockedValue(false)
    /// How many messages may wait.
    public let limit: Int

    /// An empty queue of at most `limit` messages.
    public init(limit: Int) {
        self.limit = max(1, limit)
        (messages, continuation) = AsyncStream.makeStream(
            of: String.self, bufferingPolicy: .bufferingOldest(self.limit))
    }

    /// Queues `text`; `false` when the connection is over (finished, or overflowed now).
    @discardableResult
    public func offer(_ text: String) -> Bool {
        switch continuation.yield(text) {
        case .enqueued:
            return true
        case .dropped:
            overflow.withLock { $0 = true }
            continuation.finish()
            return false
        case .terminated:
            return false
        @unknown default:
            return false
        }
    }

    /// Whether the queue overflowed: the writer must stop sending and close.
    public var hasOverflowed: Bool { overflow.withLock { $0 } }

    /// Ends the queue: the writer sends what is queued, then stops.
    public func finish() { continuation.finish() }
}
