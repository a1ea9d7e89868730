import RowCastKit

/// An item as a request carries it, validated: identity, routing and the data a plugin renders.
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
    /// The fields the plugin renders.
    public var data: JSONObject

    /// An item from its parts.
    public init(id: String, type: String, section: String = ItemInput.defaultSection, sort: Double? = nil, data: JSONObject = JSONObject()) {
        self.id = id
        self.type = type
        self.section = section
        self.sort = sort
        self.data = data
    }

    /// The item as the plugin receives it: `{"id","type","section","sort"?,"data"}`.
    public func pluginInput() -> [UInt8] {
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
        return writer.bytes
    }
}
