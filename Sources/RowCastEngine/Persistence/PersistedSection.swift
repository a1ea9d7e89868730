import RowCastJSON

/// A section as the durable store keeps it: declared or only created by items, and its
/// first-arrival rank.
public struct PersistedSection: Sendable, Equatable {
    /// The section id.
    public var id: String
    /// The explicit order, if declared with one.
    public var order: Double?
    /// The section type, if any.
    public var type: String?
    /// The header fields, if any.
    public var header: JSONObject?
    /// Whether a `section` request declared it.
    public var declared: Bool
    /// The first-arrival rank within the feed.
    public var arrival: UInt64

    /// A section from its parts.
    public init(id: String, order: Double?, type: String?, header: JSONObject?, declared: Bool, arrival: UInt64) {
        self.id = id
        self.order = order
        self.type = type
        self.header = header
        self.declared = declared
        self.arrival = arrival
    }
}
