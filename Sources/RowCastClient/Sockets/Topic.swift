/// A subscription prefix on the daemon's PUB socket (PROTOCOL.md, "Topics").
///
/// Topic frames end in one NUL byte, so `rows.car\0` does not match feed `cars`.
public struct Topic: Sendable, Hashable, CustomStringConvertible {
    /// The prefix bytes given to `zmq_setsockopt(ZMQ_SUBSCRIBE)`.
    public let prefix: [UInt8]

    /// A topic from raw prefix bytes.
    public init(prefix: [UInt8]) { self.prefix = prefix }

    /// The NUL-terminated topic `name`.
    public init(exactly name: String) { prefix = Array(name.utf8) + [0] }

    /// `rows.<feed>\0`: the deltas of one feed.
    public static func rows(_ feed: String) -> Topic { Topic(exactly: "rows.\(feed)") }
    /// `errors.<feed>\0`: error events about one feed.
    public static func errors(_ feed: String) -> Topic { Topic(exactly: "errors.\(feed)") }
    /// `errors\0`: error events that name no feed.
    public static let unscopedErrors = Topic(exactly: "errors")
    /// `errors` (no terminator): every error event, of every feed or none.
    public static let allErrors = Topic(prefix: Array("errors".utf8))
    /// `actions.<feed>\0`: action events of one feed.
    public static func actions(_ feed: String) -> Topic { Topic(exactly: "actions.\(feed)") }
    /// `heartbeat\0`: heartbeats.
    public static let heartbeat = Topic(exactly: "heartbeat")
    /// The empty prefix: everything the daemon publishes.
    public static let everything = Topic(prefix: [])

    /// The prefix as text, `\0` shown as such.
    public var description: String {
        String(decoding: prefix, as: UTF8.self).replacing("\u{0}", with: "\\0")
    }
}
