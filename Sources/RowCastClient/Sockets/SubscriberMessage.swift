import RowCastJSON

/// One message from the daemon's PUB socket: its topic and its JSON body.
public struct SubscriberMessage: Sendable, Equatable {
    /// The topic without its NUL terminator (`rows.cars`, `errors`, `heartbeat`).
    public let topic: String
    /// The body: a delta, a position, an error event, an action event or a heartbeat.
    public let body: JSONValue

    /// A message with `topic` and `body`.
    public init(topic: String, body: JSONValue) {
        self.topic = topic
        self.body = body
    }

    /// The body's `event` (`delta`, `position`, `error`, `action`, `heartbeat`), or `""`.
    public var event: String { body["event"]?.stringValue ?? "" }

    /// Whether this is a delta: on a `rows.` topic, and not a position.
    public var isDelta: Bool { topic.hasPrefix("rows.") && !isPosition }

    /// Whether this is a position event (`{"event":"position","feed","epoch","seq"}`, on the
    /// feed's `rows.` topic beside its deltas): where the feed stands, changing nothing.
    public var isPosition: Bool { topic.hasPrefix("rows.") && event == "position" }

    /// Whether this is a heartbeat.
    public var isHeartbeat: Bool { topic == "heartbeat" }
}
