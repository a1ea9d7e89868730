/// One column of many rows, sent as a single one-dimensional array parameter in PostgreSQL's
/// binary array format, for statements that read their rows with `unnest`
/// (`PostgresStatement.rows`). The server copies each element out as it is: nothing is parsed,
/// and the statement's text is the same whatever the number of rows, so it is prepared once
/// per connection.
struct PostgresColumn {
    /// The type of the elements.
    let element: PostgresType
    /// How many elements.
    private(set) var count = 0
    private var hasNull = false
    /// The elements as the binary format lays them out: each one's length (-1 for NULL) and bytes.
    private var elements: [UInt8] = []

    /// An empty column of `element` values.
    init(_ element: PostgresType) {
        self.element = element
    }

    /// The array type the column is sent as.
    var arrayType: PostgresType { element.arrayType }

    /// Appends `value`, which is NULL or of the column's element type.
    mutating func append(_ value: PostgresValue) {
        count += 1
        switch value {
        case .null:
            hasNull = true
            appendInt32(-1)
        case .text(let text):
            let utf8 = text.utf8
            appendInt32(Int32(utf8.count))
            elements.append(contentsOf: utf8)
        case .int(let number):
            appendInt32(8)
            appendInt64(UInt64(bitPattern: number))
        case .double(let number):
            appendInt32(8)
            appendInt64(number.bitPattern)
        case .bool(let flag):
            appendInt32(1)
            elements.append(flag ? 1 : 0)
        case .bytes(let bytes):
            appendInt32(Int32(bytes.count))
            elements.append(contentsOf: bytes)
        case .textArray, .bigintArray, .column:
            preconditionFailure("PostgresColumn: an array cannot be an element of a column")
        }
    }

    /// The parameter's bytes: dimensions, NULL flag, element type, length and lower bound of
    /// the one dimension, then the elements (an empty array has no dimension).
    var wire: [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(20 + elements.count)
        Self.append(count == 0 ? 0 : 1, to: &header)
        Self.append(hasNull ? 1 : 0, to: &header)
        Self.append(Int32(bitPattern: element.rawValue), to: &header)
        if count > 0 {
            Self.append(Int32(count), to: &header)
            Self.append(1, to: &header)
        }
        return header + elements
    }

    private mutating func appendInt32(_ value: Int32) {
        Self.append(value, to: &elements)
    }

    /// Appends `value`'s four bytes, most significant first (the protocol's order).
    private static func append(_ value: Int32, to bytes: inout [UInt8]) {
        let bits = UInt32(bitPattern: value)
        bytes.append(UInt8(bits >> 24))
        bytes.append(UInt8(bits >> 16 & 0xFF))
        bytes.append(UInt8(bits >> 8 & 0xFF))
        bytes.append(UInt8(bits & 0xFF))
    }

    private mutating func appendInt64(_ bits: UInt64) {
        appendInt32(Int32(bitPattern: UInt32(bits >> 32)))
        appendInt32(Int32(bitPattern: UInt32(bits & 0xFFFF_FFFF)))
    }
}
