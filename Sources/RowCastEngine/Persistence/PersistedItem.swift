/// An item as the durable store keeps it: enough to rebuild the feed exactly, including the
/// first-arrival rank that orders it among equals. Rendered rows are not kept: they are
/// rendered again at start, since plugins may have changed.
public struct PersistedItem: Sendable, Equatable {
    /// The item id.
    public var id: String
    /// The item type.
    public var type: String
    /// The section id.
    public var section: String
    /// The sort key, if given.
    public var sort: Double?
    /// The first-arrival rank within the feed.
    public var arrival: UInt64
    /// The item JSON (`{"id","type","section","sort"?,"data"}`), as handed to plugins.
    public var json: [UInt8]

    /// An item from its parts.
    public init(id: String, type: String, section: String, sort: Double?, arrival: UInt64, json: [UInt8]) {
        self.id = id
        self.type = type
        self.section = section
        self.sort = sort
        self.arrival = arrival
        self.json = json
    }
}
