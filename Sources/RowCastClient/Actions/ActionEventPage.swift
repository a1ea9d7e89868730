import RowCastJSON

/// One `events` reply: a feed's action events after an event sequence, oldest first.
public struct ActionEventPage: Sendable, Equatable {
    /// The events, each `{"event":"action","feed","id","action","value"?,"requester",
    /// "eventSeq","change","result"}`.
    public var events: [JSONValue]
    /// The sequence of the feed's last event (0 when it has none).
    public var last: Int
    /// The sequence of the oldest event the daemon still keeps (nil when none).
    public var first: Int?
    /// False when events after the asked sequence were already dropped by retention: the
    /// producer missed some and should reconcile from a snapshot.
    public var covered: Bool
    /// True when more events follow this page: ask again after ``nextAfter``.
    public var more: Bool

    /// The `after` that continues from this page: its last event's sequence.
    public var nextAfter: Int {
        events.last?["eventSeq"]?.numberValue.map { Int($0) } ?? 0
    }

    /// Reads an `events` reply.
    public init(reply: JSONValue) throws(RowCastClientError) {
        guard let events = reply["events"]?.arrayValue, let last = reply["last"]?.numberValue else {
            throw RowCastClientError(
                code: "invalid_reply", message: "an events reply without \"events\" and \"last\": \(reply)")
        }
        self.events = events
        self.last = Int(last)
        self.first = reply["first"]?.numberValue.map { Int($0) }
        self.covered = reply["covered"]?.boolValue ?? true
        self.more = reply["more"]?.boolValue ?? false
    }
}
