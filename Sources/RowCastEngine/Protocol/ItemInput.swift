import RowCastJSON

/// An item as a request carries it, validated: identity and routing, plus the item's JSON
/// exactly as published, which is what the plugin receives. The `data` fields are checked to
/// be an object but never built into a tree here: the plugin reads them.
public struct ItemInput: Sendable, Equatable {
    /// The section used when an item names none.
    public static let defaultSection = "default"

    /// Identity of the item and of its row within the feed.
    public var id: String
    /// The item type, which picks the plugin.
    public var type: String
    /// The id of the section the row appears in.
    public var section: String
    /// The sort key within the section (rows are ordered by sort, then first arrival).
    public var sort: Double?
    /// The item object as published (`{"id","type","section"?,"sort"?,"data"?}`).
    public var json: [UInt8]

    /// An item whose JSON is `json`, as the decoder found it.
    public init(id: String, type: String, section: String, sort: Double?, json: [UInt8]) {
        self.id = id
        self.type = type
        self.section = section
        self.sort = sort
        self.json = json
    }

    /// An item from its parts, written as canonical JSON.
    public init(
        id: String, type: String, section: String = ItemInput.defaultSection, sort: Double? = nil,
        data: JSONObject = JSONObject()
    ) {
        var writer = JSONWriter(capacity: 256)
        writer.writeRaw("{\"id\":")
        writer.write(string: id)
        writer.writeRaw(",\"type\":")
        writer.write(string: type)
        writer.writeRaw(",\"section\":")
        writer.write(string: section)
        if let sort {
            writer.writeRaw(",\"sort\":")
            writer.write(number: sort)
        }
        writer.writeRaw(",\"data\":")
        writer.write(.object(data))
        writer.writeRaw("}")
        self.init(id: id, type: type, section: section, sort: sort, json: writer.bytes)
    }
}
