/// Typed, throwing access to the fields of a JSON object: the "failable init from a
/// dictionary" of the table-view pattern, one field at a time.
///
/// Every accessor throws an ``ItemError`` that names the field: `missing field "price"` when it
/// is absent, `field "price" must be a number, got string` when it has the wrong type. The
/// `optional…` accessors return `nil` for an absent or `null` field but still throw on a wrong
/// type, so a typo in a publisher is never silently ignored.
public protocol FieldReading {
    /// The object the accessors read (an item's `data`, a section's `header`).
    var fields: JSONObject { get }
}

// The accessors are inlinable: a plugin calls them from its own module, where, opaque, each
// was an unspecialized generic call reaching `fields` through the witness table, retaining and
// releasing the object, then the typed check; inlined, they are specialized for `Item`.
extension FieldReading {
    /// The field's value; throws when it is absent.
    @inlinable
    public func value(_ name: String) throws(ItemError) -> JSONValue {
        guard let value = fields[name] else { throw .missingField(name) }
        return value
    }

    /// The field's value, or `nil` when it is absent or `null`.
    @inlinable
    public func optionalValue(_ name: String) -> JSONValue? {
        guard let value = fields[name], !value.isNull else { return nil }
        return value
    }

    /// A required string field.
    @inlinable
    public func string(_ name: String) throws(ItemError) -> String {
        let value = try value(name)
        guard let string = value.stringValue else { throw .invalidField(name, mustBe: "a string", got: value) }
        return string
    }

    /// An optional string field: `nil` when absent or `null`.
    @inlinable
    public func optionalString(_ name: String) throws(ItemError) -> String? {
        guard let value = optionalValue(name) else { return nil }
        guard let string = value.stringValue else { throw .invalidField(name, mustBe: "a string", got: value) }
        return string
    }

    /// A required number field.
    @inlinable
    public func number(_ name: String) throws(ItemError) -> Double {
        let value = try value(name)
        guard let number = value.numberValue else { throw .invalidField(name, mustBe: "a number", got: value) }
        return number
    }

    /// An optional number field: `nil` when absent or `null`.
    @inlinable
    public func optionalNumber(_ name: String) throws(ItemError) -> Double? {
        guard let value = optionalValue(name) else { return nil }
        guard let number = value.numberValue else { throw .invalidField(name, mustBe: "a number", got: value) }
        return number
    }

    /// A required integer field: a number without a fraction that fits in `Int`.
    @inlinable
    public func integer(_ name: String) throws(ItemError) -> Int {
        let number = try number(name)
        guard let integer = Int(exactly: number) else { throw .invalidField(name, "must be an integer, got \(number)") }
        return integer
    }

    /// An optional integer field: `nil` when absent or `null`.
    @inlinable
    public func optionalInteger(_ name: String) throws(ItemError) -> Int? {
        guard optionalValue(name) != nil else { return nil }
        return try integer(name)
    }

    /// A required Boolean field.
    @inlinable
    public func bool(_ name: String) throws(ItemError) -> Bool {
        let value = try value(name)
        guard let flag = value.boolValue else { throw .invalidField(name, mustBe: "a boolean", got: value) }
        return flag
    }

    /// An optional Boolean field: `nil` when absent or `null`.
    @inlinable
    public func optionalBool(_ name: String) throws(ItemError) -> Bool? {
        guard let value = optionalValue(name) else { return nil }
        guard let flag = value.boolValue else { throw .invalidField(name, mustBe: "a boolean", got: value) }
        return flag
    }

    /// A required URL field: a string with a scheme, no spaces, and a scheme of `schemes`
    /// (by default `http` or `https`: see ``URLCheck``; name others, such as `["myapp"]`, to
    /// accept them).
    @inlinable
    public func url(_ name: String, schemes: Set<String> = URLCheck.webSchemes) throws(ItemError) -> String {
        let string = try string(name)
        if let problem = URLCheck.problem(with: string, schemes: schemes) { throw .invalidField(name, problem) }
        return string
    }

    /// An optional URL field: `nil` when absent or `null`.
    @inlinable
    public func optionalURL(_ name: String, schemes: Set<String> = URLCheck.webSchemes) throws(ItemError) -> String? {
        guard optionalValue(name) != nil else { return nil }
        return try url(name, schemes: schemes)
    }

    /// A required object field.
    @inlinable
    public func object(_ name: String) throws(ItemError) -> JSONObject {
        let value = try value(name)
        guard let object = value.objectValue else { throw .invalidField(name, mustBe: "an object", got: value) }
        return object
    }

    /// A required array field.
    @inlinable
    public func array(_ name: String) throws(ItemError) -> [JSONValue] {
        let value = try value(name)
        guard let array = value.arrayValue else { throw .invalidField(name, mustBe: "an array", got: value) }
        return array
    }

    /// Whether `string` is a URL of any scheme (`URLCheck.scheme(of:)`): an RFC 3986 scheme
    /// (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`), a colon, then a non-empty rest without
    /// whitespace or control characters.
    public static func looksLikeURL(_ string: String) -> Bool {
        URLCheck.scheme(of: string) != nil
    }
}
