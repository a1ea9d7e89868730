/// Why an item (or a section header, or a select request) cannot be rendered: a value a feed
/// publisher can act on, naming the field at fault.
///
/// It crosses the plugin ABI as `{"message": ..., "field": ..., "code": ...}` with status
/// `ROWCAST_ITEM_ERROR`, and rowcastd reports it on the error topic with the item id.
public struct ItemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A machine-readable error code; new codes can be added without breaking callers.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as it appears in JSON, e.g. `missing_field`.
        public let rawValue: String

        /// A code from its JSON spelling.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A required field is absent.
        public static let missingField = Code(rawValue: "missing_field")
        /// A field is present but has the wrong type or an unusable value.
        public static let invalidField = Code(rawValue: "invalid_field")
        /// The input is not a JSON object of the expected shape.
        public static let invalidInput = Code(rawValue: "invalid_input")
        /// The item's type has no controller in this plugin.
        public static let unknownType = Code(rawValue: "unknown_type")
        /// The select request names an action the controller does not handle.
        public static let unknownAction = Code(rawValue: "unknown_action")

        /// The JSON spelling.
        public var description: String { rawValue }
    }

    /// What kind of error this is.
    public let code: Code
    /// The field at fault (`"price"`, `"data"`, ...), when one field is.
    public let field: String?
    /// A one-line message naming the thing at fault, e.g. `missing field "price"`.
    public let message: String

    /// An error with an explicit code, field and message.
    public init(code: Code, field: String? = nil, message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// The error as the ABI carries it: `{"message", "field" (when known), "code"}`.
    public var jsonValue: JSONValue {
        var object: JSONObject = ["message": .string(message)]
        if let field { object["field"] = .string(field) }
        object["code"] = .string(code.rawValue)
        return .object(object)
    }
}

extension ItemError {
    /// `missing field "<name>"`: a required field is absent.
    public static func missingField(_ name: String) -> ItemError {
        ItemError(code: .missingField, field: name, message: "missing field \"\(name)\"")
    }

    /// `field "<name>" must be <expected>, got <kind>`: a field has the wrong type.
    public static func invalidField(_ name: String, mustBe expected: String, got value: JSONValue) -> ItemError {
        ItemError(
            code: .invalidField, field: name, message: "field \"\(name)\" must be \(expected), got \(value.kindName)")
    }

    /// `field "<name>" <problem>`: a field has the right type but an unusable value.
    public static func invalidField(_ name: String, _ problem: String) -> ItemError {
        ItemError(code: .invalidField, field: name, message: "field \"\(name)\" \(problem)")
    }

    /// `unknown action "<name>"`: a select request names an action the controller does not handle.
    public static func unknownAction(_ name: String) -> ItemError {
        ItemError(code: .unknownAction, field: "action", message: "unknown action \"\(name)\"")
    }

    /// `<what> is not valid JSON: <reason>`: the input bytes do not parse.
    public static func invalidJSON(_ what: String, _ error: JSONParseError) -> ItemError {
        ItemError(code: .invalidInput, message: "\(what) is not valid JSON: \(error)")
    }
}
