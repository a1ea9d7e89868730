/// An item as the durable store keeps it: enough to rebuild the feed exactly, including the
/// first-arrival rank that orders it among equals, and its row as rendered (nil when it has
/// none), so that a start serves it without calling a plugin. Which renderer drew the rows of
/// a type is recorded per type (`RendererRecord`); a start renders again, in the background,
/// only the items whose type's renderer changed since.
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
    /// The item's row as rendered when it was stored; nil when it had none (no plugin for its
    /// type, quarantined, or its plugin failed on it).
    public var row: RenderedRow?
    /// Whether `row` is the stored rendering. False for a record written before rows were
    /// stored (schema v6 and older): such an item is rendered again at start.
    public var rendered: Bool

    /// An item from its parts.
    public init(
        id: String, type: String, section: String, sort: Double?, arrival: UInt64, json: [UInt8],
        row: RenderedRow? = nil, rendered: Bool = true
    ) {
        self.id = id
        self.type = type
        self.section = section
        self.sort = sort
        self.arrival = arrival
        self.json = json
        self.row = row
        self.rendered = rendered
    }
}
