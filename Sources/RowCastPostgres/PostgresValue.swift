/// One parameter of a PostgreSQL statement, with the type the server is told it has. Values
/// travel as parameters only (never spliced into SQL text); bytes go in binary format, the
/// rest as text.
enum PostgresValue {
    /// `text`.
    case text(String)
    /// `bigint`.
    case int(Int64)
    /// `double precision`.
    case double(Double)
    /// `boolean`.
    case bool(Bool)
    /// `bytea`, sent as raw bytes.
    case bytes([UInt8])
    /// `text[]`, sent as an array literal (`PostgresValue.textArray`).
    case textArray([String])
    /// `bigint[]`, sent as an array literal (`{1,2,3}`).
    case bigintArray([Int64])
    /// An array of one column's values, sent in binary (`PostgresColumn`).
    case column(PostgresColumn)
    /// SQL NULL of the given type.
    case null(PostgresType)

    /// A text value, or NULL of type text.
    static func text(_ value: String?) -> PostgresValue { value.map { .text($0) } ?? .null(.text) }
    /// A number, or NULL of type double precision.
    static func double(_ value: Double?) -> PostgresValue { value.map { .double($0) } ?? .null(.double) }
    /// A number, or NULL of type bigint.
    static func int(_ value: Int64?) -> PostgresValue { value.map { .int($0) } ?? .null(.bigint) }
    /// A count as a bigint (counts here stay below 2^63).
    static func count(_ value: UInt64) -> PostgresValue { .int(Int64(bitPattern: value)) }
    /// Bytes, or NULL of type bytea.
    static func bytes(_ value: [UInt8]?) -> PostgresValue { value.map { .bytes($0) } ?? .null(.bytea) }

    /// The type's OID.
    var type: PostgresType {
        switch self {
        case .text: return .text
        case .int: return .bigint
        case .double: return .double
        case .bool: return .bool
        case .bytes: return .bytea
        case .textArray: return .textArray
        case .bigintArray: return .bigintArray
        case .column(let column): return column.arrayType
        case .null(let type): return type
        }
    }

    /// The value as sent: its bytes (nil for NULL) and whether they are binary.
    var wire: (bytes: [UInt8]?, binary: Bool) {
        switch self {
        case .text(let value): return (Array(value.utf8), false)
        case .int(let value): return (Array(String(value).utf8), false)
        // Swift prints the shortest text that reads back as the same Double.
        case .double(let value): return (Array("\(value)".utf8), false)
        case .bool(let value): return (Array((value ? "t" : "f").utf8), false)
        case .bytes(let value): return (value, true)
        case .textArray(let values): return (Array(Self.arrayLiteral(values).utf8), false)
        case .bigintArray(let values):
            return (Array(("{" + values.map { String($0) }.joined(separator: ",") + "}").utf8), false)
        case .column(let column): return (column.wire, true)
        case .null: return (nil, false)
        }
    }

    /// `{"a","b\"c"}`: every element quoted, `"` and `\` escaped with a backslash.
    static func arrayLiteral(_ values: [String]) -> String {
        var literal = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { literal += "," }
            literal += "\""
            for character in value.unicodeScalars {
                if character == "\"" || character == "\\" { literal += "\\" }
                literal.unicodeScalars.append(character)
            }
            literal += "\""
        }
        return literal + "}"
    }
}

/// The PostgreSQL types the store sends, by OID (`pg_type.oid`).
enum PostgresType: UInt32 {
    /// `boolean`.
    case bool = 16
    /// `bytea`.
    case bytea = 17
    /// `bigint`.
    case bigint = 20
    /// `text`.
    case text = 25
    /// `double precision`.
    case double = 701
    /// `text[]`.
    case textArray = 1009
    /// `bigint[]`.
    case bigintArray = 1016
    /// `boolean[]`.
    case boolArray = 1000
    /// `bytea[]`.
    case byteaArray = 1001
    /// `double precision[]`.
    case doubleArray = 1022

    /// The type of an array of this type's values (an array type's own for an array type).
    var arrayType: PostgresType {
        switch self {
        case .bool, .boolArray: return .boolArray
        case .bytea, .byteaArray: return .byteaArray
        case .bigint, .bigintArray: return .bigintArray
        case .text, .textArray: return .textArray
        case .double, .doubleArray: return .doubleArray
        }
    }

    /// The type's name in SQL.
    var sqlName: String {
        switch self {
        case .bool: return "boolean"
        case .bytea: return "bytea"
        case .bigint: return "bigint"
        case .text: return "text"
        case .double: return "double precision"
        case .textArray: return "text[]"
        case .bigintArray: return "bigint[]"
        case .boolArray: return "boolean[]"
        case .byteaArray: return "bytea[]"
        case .doubleArray: return "double precision[]"
        }
    }
}
