import RowCastJSON

/// A section declaration as a request carries it, validated.
public struct SectionInput: Sendable, Equatable {
    /// The section id.
    public var id: String
    /// The explicit order among sections (sections are ordered by order, then first arrival).
    public var order: Double?
    /// The section type, which picks the plugin that renders its header row.
    public var type: String?
    /// The header fields given to that plugin and shown as they are.
    public var header: JSONObject?

    /// A section from its parts.
    public init(id: String, order: Double? = nil, type: String? = nil, header: JSONObject? = nil) {
        self.id = id
        self.order = order
        self.type = type
        self.header = header
    }
}
