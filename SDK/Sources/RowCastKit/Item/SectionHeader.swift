/// A read-only view of a section as rowcastd hands it to a header plugin:
/// `{"id": string, "type": string, "order": number (optional), "header": {...}}`.
///
/// The fields of `header` are read with the typed accessors of ``FieldReading``.
public struct SectionHeader: FieldReading, Sendable {
    /// The section id, unique in its feed.
    public let id: String
    /// The section type that chose the header controller.
    public let type: String
    /// The section's order key, when it has one.
    public let order: Double?
    /// The header's own fields (an empty object when the input has none).
    public let header: JSONObject
    /// The whole section object as received.
    public let json: JSONObject

    /// The fields the accessors read: `header`.
    public var fields: JSONObject { header }

    /// A section header from its JSON; throws when the envelope is malformed.
    public init(json: JSONValue) throws(ItemError) {
        guard let object = json.objectValue else {
            throw ItemError(code: .invalidInput, message: "a section must be a JSON object, got \(json.kindName)")
        }
        let envelope = Envelope(fields: object)
        id = try envelope.string("id")
        type = try envelope.string("type")
        order = try envelope.optionalNumber("order")
        if let header = envelope.optionalValue("header") {
            guard let headerObject = header.objectValue else {
                throw .invalidField("header", mustBe: "an object", got: header)
            }
            self.header = headerObject
        } else {
            self.header = JSONObject()
        }
        self.json = object
    }
}
