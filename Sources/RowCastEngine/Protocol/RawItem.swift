import RowCastJSON

/// An item object as the decoder's reader found it: every member parsed except `data`, which
/// is only validated (its kind noted), and the object's own bytes.
struct RawItem {
    /// What `data` was.
    enum DataKind {
        /// No `data` member (or `null`).
        case absent
        /// An object.
        case object
        /// Something else; its kind name, for the error.
        case other(String)
    }

    /// An element of a reset's `items`: an item, or something else (an error).
    enum Element {
        /// An item object.
        case item(RawItem)
        /// Not an object.
        case other(JSONValue)
    }

    /// The members other than `data`.
    var members = JSONObject()
    /// What `data` was.
    var data = DataKind.absent
    /// The item object's bytes.
    var bytes: [UInt8] = []

    /// Reads an item object at the reader's position; `source` is the whole message.
    static func read(_ reader: inout JSONParser, source: [UInt8]) throws(JSONParseError) -> RawItem {
        var item = RawItem()
        let start = reader.offset
        try reader.beginObject()
        while let key = try reader.nextKey() {
            if key == "data" {
                switch reader.peekValueStart() {
                case UInt8(ascii: "{"):
                    item.data = .object
                    try reader.skipValue()
                case UInt8(ascii: "n"):
                    _ = try reader.readValue()
                    item.data = .absent
                default:
                    item.data = .other(try reader.readValue().kindName)
                }
            } else {
                item.members.append(key: key, value: try reader.readValue())
            }
        }
        let range = start..<reader.offset
        item.bytes = Array(source[range].drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 })
        return item
    }
}
