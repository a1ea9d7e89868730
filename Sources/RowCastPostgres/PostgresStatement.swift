/// One SQL statement with its parameters (`$1`, `$2`, …), sent with the extended protocol.
struct PostgresStatement {
    /// The SQL text, with placeholders.
    var sql: String
    /// The parameters, in placeholder order.
    var parameters: [PostgresValue]

    /// A statement from its parts.
    init(_ sql: String, _ parameters: [PostgresValue] = []) {
        self.sql = sql
        self.parameters = parameters
    }

    /// The most parameters one statement may carry (the protocol's limit is 65,535).
    static let parameterLimit = 60_000

    /// Statements that write `rows` (each `columns` values) with `prefix` (`INSERT INTO t(a,
    /// b) VALUES`) and `suffix` (`ON CONFLICT …`), as many rows per statement as the parameter
    /// limit allows: `($1, $2), ($3, $4), …`.
    static func multiRow(
        _ prefix: String, columns: Int, rows: [[PostgresValue]], suffix: String = ""
    ) -> [PostgresStatement] {
        guard !rows.isEmpty else { return [] }
        let perStatement = max(1, parameterLimit / columns)
        var statements: [PostgresStatement] = []
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + perStatement, rows.count)]
            var sql = prefix + " "
            var parameters: [PostgresValue] = []
            parameters.reserveCapacity(chunk.count * columns)
            for (rowIndex, row) in chunk.enumerated() {
                sql += rowIndex == 0 ? "(" : ", ("
                for column in 0..<columns {
                    if column > 0 { sql += ", " }
                    sql += "$\(parameters.count + 1)"
                    parameters.append(row[column])
                }
                sql += ")"
            }
            if !suffix.isEmpty { sql += " " + suffix }
            statements.append(PostgresStatement(sql, parameters))
            start += chunk.count
        }
        return statements
    }
}
