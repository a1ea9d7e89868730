/// A JSON value as RowCast reads and writes it: items, rows, envelopes and deltas.
///
/// Numbers are `JSONNumber`s: a `Double` to read (`numberValue`) and the exact text they were
/// written with, so a value parsed and written again keeps every number byte for byte.
/// `.number(someDouble)` still makes a number from a `Double`. Objects keep their keys in input
/// order, so a value written back out reads the same.
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Any JSON number, with its text as written.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, keys in input order.
    case object(JSONObject)
}

extension JSONValue {
    /// A number from a `Double` (it prints as `JSONWriter.write(number:)` prints a `Double`).
    public static func number(_ value: Double) -> JSONValue { .number(JSONNumber(value)) }

    /// The string, when this value is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, when this value is a number.
    public var numberValue: Double? {
        if case .number(let value) = self { return value.double }
        return nil
    }

    /// The Boolean, when this value is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The object, when this value is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements, when this value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// Whether this value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key`, when this value is an object that has it.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// A short name of this value's kind, for error messages ("string", "number", ...).
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string value from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// A number value from an integer literal.
    public init(integerLiteral value: Int) { self = .number(JSONNumber(Double(value))) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A number value from a floating-point literal.
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// A Boolean value from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array value from a literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object value from a literal, keys in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// `null` from `nil`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of this value.
    public var description: String { String(decoding: serialized(), as: UTF8.self) }
}
