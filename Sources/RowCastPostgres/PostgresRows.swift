import CPostgreSQL

/// The rows of one query's result, read as text (libpq's text format), copied out of the
/// `PGresult` so it can be cleared at once.
struct PostgresRows {
    /// Each row's columns: nil for NULL, else the value's text bytes.
    private(set) var rows: [[[UInt8]?]]

    /// Copies every value out of `result`.
    init(_ result: OpaquePointer) {
        let count = Int(PQntuples(result))
        let columns = Int(PQnfields(result))
        var rows: [[[UInt8]?]] = []
        rows.reserveCapacity(count)
        for row in 0..<count {
            var values: [[UInt8]?] = []
            values.reserveCapacity(columns)
            for column in 0..<columns {
                if PQgetisnull(result, Int32(row), Int32(column)) != 0 {
                    values.append(nil)
                    continue
                }
                let length = Int(PQgetlength(result, Int32(row), Int32(column)))
                let start = PQgetvalue(result, Int32(row), Int32(column))!
                values.append(
                    start.withMemoryRebound(to: UInt8.self, capacity: length) {
                        Array(UnsafeBufferPointer(start: $0, count: length))
                    })
            }
            rows.append(values)
        }
        self.rows = rows
    }

    /// How many rows.
    var count: Int { rows.count }
}

/// One row's values, typed on reading: a value that does not read as its type gives nil.
struct PostgresRow {
    /// The columns (nil: NULL).
    let values: [[UInt8]?]

    /// Whether column `index` is NULL.
    func isNull(_ index: Int) -> Bool { values[index] == nil }

    /// The text at `index`.
    func text(_ index: Int) -> String? {
        values[index].map { String(decoding: $0, as: UTF8.self) }
    }

    /// The optional text at `index`: `.some(nil)` for NULL.
    func optionalText(_ index: Int) -> String?? { .some(text(index)) }

    /// The integer at `index`.
    func integer(_ index: Int) -> Int64? { text(index).flatMap { Int64($0) } }

    /// The count (0 or more) at `index`.
    func count(_ index: Int) -> UInt64? { integer(index).flatMap { UInt64(exactly: $0) } }

    /// The number at `index` (`.some(nil)` for NULL; nil when it does not parse).
    func optionalNumber(_ index: Int) -> Double?? {
        guard let text = text(index) else { return .some(nil) }
        switch text {
        case "Infinity": return .some(.infinity)
        case "-Infinity": return .some(-.infinity)
        case "NaN": return .some(.nan)
        default: return Double(text).map { .some($0) }
        }
    }

    /// The boolean at `index` (`t` or `f`).
    func bool(_ index: Int) -> Bool? {
        switch values[index] {
        case [0x74]?: return true
        case [0x66]?: return false
        default: return nil
        }
    }

    /// The bytes of the `bytea` at `index`, from its hex text (`\x0a1b…`); nil for NULL or a
    /// value not in that form.
    func bytes(_ index: Int) -> [UInt8]? {
        guard let text = values[index], text.count >= 2, text[0] == 0x5C, text[1] == 0x78, text.count % 2 == 0
        else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((text.count - 2) / 2)
        var index = 2
        while index < text.count {
            guard let high = Self.nibble(text[index]), let low = Self.nibble(text[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: return digit - 0x30
        case 0x61...0x66: return digit - 0x61 + 10
        case 0x41...0x46: return digit - 0x41 + 10
        default: return nil
        }
    }
}

extension PostgresRows: Sequence {
    /// The rows in order.
    func makeIterator() -> some IteratorProtocol<PostgresRow> {
        rows.lazy.map(PostgresRow.init(values:)).makeIterator()
    }
}
