import RowCastJSON

/// Builds one item from command-line style pieces: id, type, section, sort and `key=value` fields.
public struct ItemBuilder: Sendable, Equatable {
    /// The item id.
    public var id: String
    /// The item type (routes it to a plugin).
    public var type: String
    /// The section id, or `nil` for the daemon's default.
    public var section: String?
    /// The sort key, or `nil` for the daemon's default.
    public var sort: Double?
    /// The `data` members, in the order given; a repeated key keeps its last value.
    public var fields: JSONObject

    /// An item with no fields yet.
    public init(
        id: String, type: String, section: String? = nil, sort: Double? = nil, fields: JSONObject = JSONObject()
    ) {
        self.id = id
        self.type = type
        self.section = section
        self.sort = sort
        self.fields = fields
    }

    /// Adds a field from `key=value`; the value is JSON when it parses as a number, `true`,
    /// `false`, `null`, an array, an object or a quoted string, and a plain string otherwise.
    /// With `forceString`, the value is always the string after `=`.
    public mutating func addField(_ assignment: String, forceString: Bool = false) throws(RowCastClientError) {
        let (key, text) = try Self.split(assignment)
        fields[key] = forceString ? .string(text) : Self.value(of: text)
    }

    /// The item object: `id`, `type`, then `section` and `sort` when set, then `data`.
    public var item: JSONValue {
        var object: JSONObject = ["id": .string(id), "type": .string(type)]
        if let section { object["section"] = .string(section) }
        if let sort { object["sort"] = .number(sort) }
        object["data"] = .object(fields)
        return .object(object)
    }

    /// The JSON value of a field's text: parsed when it is JSON, else the text as a string.
    public static func value(of text: String) -> JSONValue {
        guard let first = text.utf8.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            return .string(text)
        }
        // Only texts that start like a JSON value are tried, so "Tesla" stays a string cheaply.
        let startsJSON =
            first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
            || [
                UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""), UInt8(ascii: "t"), UInt8(ascii: "f"),
                UInt8(ascii: "n"),
            ].contains(first)
        guard startsJSON, let parsed = try? JSONParser.parse(text) else { return .string(text) }
        return parsed
    }

    /// Splits `key=value` at the first `=`; the key must not be empty.
    static func split(_ assignment: String) throws(RowCastClientError) -> (String, String) {
        guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
            throw RowCastClientError(
                code: "invalid_field",
                message: "field \"\(assignment)\" is not key=value (example: --field price=39999)")
        }
        return (String(assignment[..<equals]), String(assignment[assignment.index(after: equals)...]))
    }
}
