import RowCastJSON

/// One section of a ``FeedReplica``: its declared attributes and its rows in order.
public struct ReplicaSection: Sendable, Equatable {
    /// The section object as the daemon sent it (`id`, `order`, `type`, `header`, `headerRow`),
    /// members in wire order, without `rows`.
    public internal(set) var attributes: JSONObject
    /// The rendered rows, in order; each is a JSON object with at least a string `id`.
    public internal(set) var rows: [JSONValue]

    /// A section from its attributes (which must include a string `id`) and rows.
    public init(attributes: JSONObject, rows: [JSONValue]) {
        self.attributes = attributes.removing("rows")
        self.rows = rows
    }

    /// The section id.
    public var id: String { attributes["id"]?.stringValue ?? "" }

    /// The section as it appears in a snapshot: its attributes followed by `rows`.
    public var json: JSONValue {
        var object = attributes
        object.append(key: "rows", value: .array(rows))
        return .object(object)
    }
}

extension JSONValue {
    /// The `id` of a row object, when it has a string one.
    var rowID: String? { self["id"]?.stringValue }
}
