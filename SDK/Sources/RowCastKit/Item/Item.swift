/// A read-only view of one feed item as rowcastd hands it to a plugin:
/// `{"id": string, "type": string, "section": string (optional), "sort": number (optional), "data": {...} (optional)}`.
///
/// The envelope fields are checked once, when the item is made; the fields of `data` are read
/// with the typed accessors of ``FieldReading`` (`string("name")`, `number("price")`, ...),
/// which throw an ``ItemError`` naming the field.
public struct Item: FieldReading, Sendable {
    /// The item id, unique in its feed; it is the row's identity.
    public let id: String
    /// The item type that chose the controller, e.g. `product`.
    public let type: String
    /// The id of the section the item belongs to (`default` when the input names none, as in rowcastd).
    public let section: String
    /// The item's sort key within its section, when it has one.
    public let sort: Double?
    /// The item's own fields (an empty object when the input has no `data`).
    public let data: JSONObject
    /// The whole item object as received.
    public let json: JSONObject

    /// The fields the accessors read: `data`.
    public var fields: JSONObject { data }

    /// An item from its JSON; throws when it is not an object or an envelope field is missing
    /// or mistyped (`missing field "id"`, `field "data" must be an object, got array`).
    public init(json: JSONValue) throws(ItemError) {
        guard let object = json.objectValue else {
            throw ItemError(code: .invalidInput, message: "an item must be a JSON object, got \(json.kindName)")
        }
        try self.init(object: object)
    }

    /// An item from its JSON object.
    public init(object: JSONObject) throws(ItemError) {
        // One pass over the members finds the last occurrence of each envelope field (as a
        // lookup from the end would); they are then checked in the same order as before, so
        // the first error is the same.
        //
        // A key is compared only with the names of its length (a failed `==` is a call, and
        // the names were tried in turn): a key equal to one has its length, as the names are
        // lowercase ASCII letters and no other text is canonically equivalent to those
        // (ItemTests checks every scalar).
        var idIndex = -1, typeIndex = -1, sectionIndex = -1, sortIndex = -1, dataIndex = -1
        let entries = object.entries
        for index in entries.indices {
            let key = entries[index].key
            switch key.utf8.count {
            case 2:
                if key == "id" { idIndex = index }
            case 4:
                if key == "type" {
                    typeIndex = index
                } else if key == "data" {
                    dataIndex = index
                } else if key == "sort" {
                    sortIndex = index
                }
            case 7:
                if key == "section" { sectionIndex = index }
            default:
                break
            }
        }
        guard idIndex >= 0 else { throw .missingField("id") }
        guard case .string(let id) = entries[idIndex].value else {
            throw .invalidField("id", mustBe: "a string", got: entries[idIndex].value)
        }
        guard typeIndex >= 0 else { throw .missingField("type") }
        guard case .string(let type) = entries[typeIndex].value else {
            throw .invalidField("type", mustBe: "a string", got: entries[typeIndex].value)
        }
        // The fields go into locals and `self` is made at once: assigned one by one, the
        // optimized init built the item in a temporary and copied it out (a retain and a
        // release of every field).
        let section: String
        if sectionIndex >= 0, !entries[sectionIndex].value.isNull {
            guard case .string(let value) = entries[sectionIndex].value else {
                throw .invalidField("section", mustBe: "a string", got: entries[sectionIndex].value)
            }
            section = value
        } else {
            section = "default"
        }
        let sort: Double?
        if sortIndex >= 0, !entries[sortIndex].value.isNull {
            guard let value = entries[sortIndex].value.numberValue else {
                throw .invalidField("sort", mustBe: "a number", got: entries[sortIndex].value)
            }
            sort = value
        } else {
            sort = nil
        }
        let data: JSONObject
        if dataIndex >= 0, !entries[dataIndex].value.isNull {
            guard case .object(let dataObject) = entries[dataIndex].value else {
                throw .invalidField("data", mustBe: "an object", got: entries[dataIndex].value)
            }
            data = dataObject
        } else {
            data = JSONObject()
        }
        self.init(id: id, type: type, section: section, sort: sort, data: data, json: object)
    }

    /// An item of these fields, as they are.
    private init(id: String, type: String, section: String, sort: Double?, data: JSONObject, json: JSONObject) {
        self.id = id
        self.type = type
        self.section = section
        self.sort = sort
        self.data = data
        self.json = json
    }

    /// An item parsed from UTF-8 JSON bytes; invalid JSON is an ``ItemError`` too.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(ItemError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw .invalidJSON("the item", error)
        }
        try self.init(json: value)
    }
}

/// Reads the top-level members of an input object with the same typed accessors.
struct Envelope: FieldReading {
    /// The input object.
    let fields: JSONObject
}
