import RowCastJSON
import ZeroMQ

/// Receives deltas and events from the daemon's PUB socket through a SUB socket.
///
/// Subscribe to ``Topic``s, then call ``receive(timeout:)``. PUB drops messages for a
/// subscriber that falls behind, so deltas can go missing; ``ReplicaSession`` recovers from
/// that. Not thread-safe: use one subscriber from one thread.
public final class Subscriber {
    /// The publish endpoint connected to.
    public var endpoint: String { socket.endpoint }
    /// The topics subscribed to, in order.
    public private(set) var topics: [Topic] = []
    /// The SUB socket.
    private let socket: ClientSocket

    /// A subscriber connected to `endpoint`; it receives nothing until it subscribes.
    /// `queueLimit` is the receive high-water mark: messages beyond it are dropped. With
    /// `curve`, it connects with CURVE.
    public init(
        endpoint: String = RowCastEndpoints.publish, context: Context? = nil, queueLimit: Int = 100_000,
        curve: CurveCredentials? = nil
    ) throws(RowCastClientError) {
        socket = try ClientSocket(context: context, type: .sub, endpoint: endpoint, curve: curve) {
            socket throws(ZeroMQError) in
            try socket.setOption(.receiveHighWaterMark, queueLimit)
        }
    }

    /// Also receives from the publisher at `other` (another node of a cluster: each publishes
    /// the feeds it serves), with the same topics and CURVE credentials.
    public func connect(also other: String) throws(RowCastClientError) {
        try socket.connect(also: other)
    }

    /// Starts receiving messages whose topic frame begins with `topic`'s prefix.
    public func subscribe(_ topic: Topic) throws(RowCastClientError) {
        guard !topics.contains(topic) else { return }
        do {
            try socket.socket.subscribe(topic.prefix)
        } catch {
            throw .socket(error, endpoint: endpoint, doing: "subscribing to \(topic) at")
        }
        topics.append(topic)
    }

    /// Stops receiving messages of `topic` (one that was subscribed; any other is ignored).
    /// Messages of it already on their way may still arrive.
    public func unsubscribe(_ topic: Topic) throws(RowCastClientError) {
        guard let index = topics.firstIndex(of: topic) else { return }
        do {
            try socket.socket.unsubscribe(topic.prefix)
        } catch {
            throw .socket(error, endpoint: endpoint, doing: "unsubscribing from \(topic) at")
        }
        topics.remove(at: index)
    }

    /// The next message, waiting at most `timeout` (`nil`: for ever); `nil` when none came.
    ///
    /// - Throws: `invalid_reply` for a message that is not `[topic, JSON body]` (it is
    ///   consumed; receiving again goes on with the next one), `socket_error`.
    public func receive(timeout: Duration?) throws(RowCastClientError) -> SubscriberMessage? {
        guard let frames = try socket.receive(deadline: Deadline(timeout)) else { return nil }
        return try decode(frames)
    }

    /// A message that is already waiting, or `nil` at once.
    public func receiveNow() throws(RowCastClientError) -> SubscriberMessage? {
        guard let frames = try socket.receiveNow() else { return nil }
        return try decode(frames)
    }

    /// Closes the socket.
    public func close() { socket.close() }

    /// The socket, for waiting on it together with others.
    var clientSocket: ClientSocket { socket }

    /// `[topic\0, body]` as a message.
    func decode(_ frames: [[UInt8]]) throws(RowCastClientError) -> SubscriberMessage {
        guard frames.count == 2 else {
            throw .invalidReply(endpoint: endpoint, "is a message of \(frames.count) frame(s), not [topic, body]")
        }
        var topicBytes = frames[0]
        if topicBytes.last == 0 { topicBytes.removeLast() }
        let topic = String(decoding: topicBytes, as: UTF8.self)
        do {
            return SubscriberMessage(topic: topic, body: try JSONParser.parse(frames[1]))
        } catch {
            throw .invalidReply(endpoint: endpoint, "on topic \(topic) is not JSON (\(error))")
        }
    }
}

@available(*, unavailable)
extension Subscriber: Sendable {}
