import Foundation

/// One SQL statement with its parameters (`$1`, `$2`, …), sent with the extended protocol.
struct PostgresStatement {
    /// The SQL text, with placeholders.
    var sql: String
    /// The parameters, in placeholder order.
    var parameters: [PostgresValue]
    /// Whether a connection prepares it once (a named statement) and runs it from then on
    /// without parsing or planning it again: for statements whose text never changes.
    var prepared: Bool

    /// A statement from its parts.
    init(_ sql: String, _ parameters: [PostgresValue] = [], prepared: Bool = false) {
        self.sql = sql
        self.parameters = parameters
        self.prepared = prepared
    }

    /// A prepared statement over `rows` (each of `types.count` values, NULL or of the column's
    /// type), or nil when there are none. `sql` reads them through `{rows}`, which becomes
    /// `unnest($1::T1[], $2::T2[], …)`: one array parameter per column, whatever the number of
    /// rows, so the text is the same for every call; `extra` parameters follow as
    /// `$(types.count + 1)`, ….
    static func rows(
        _ sql: String, types: [PostgresType], rows: [[PostgresValue]], extra: [PostgresValue] = []
    ) -> PostgresStatement? {
        guard !rows.isEmpty else { return nil }
        var columns = types.map { PostgresColumn($0) }
        for row in rows {
            for index in columns.indices { columns[index].append(row[index]) }
        }
        let unnest =
            "unnest("
            + types.enumerated().map { "$\($0.offset + 1)::\($0.element.arrayType.sqlName)" }.joined(separator: ", ")
            + ")"
        return PostgresStatement(
            sql.replacingOccurrences(of: "{rows}", with: unnest), columns.map { .column($0) } + extra,
            prepared: true)
    }
}
