@testable import RowCastPostgres
import RowCastTesting
import Testing

/// The PostgreSQL store's many-row statements: columns sent as binary arrays and read with
/// `unnest`, prepared once per connection, against a real server.
@Suite(.enabled(if: PostgreSQLTestServer.testsEnabled))
struct PostgresColumnTests {
    /// A table of every column type the store sends, on a connection of its own.
    private func connectionWithTable() throws -> PostgresConnection {
        let connection = try ClusterTest.connection(try PostgreSQLTestServer.shared().makeDatabase())
        try connection.execute(
            "CREATE TABLE t (n bigint PRIMARY KEY, s text, i bigint, d double precision, b boolean, x bytea)")
        return connection
    }

    private static let insert =
        "INSERT INTO t(n, s, i, d, b, x) SELECT * FROM {rows}"
    private static let types: [PostgresType] = [.bigint, .text, .bigint, .double, .bool, .bytea]

    @Test("every value of a column, NULLs among them, arrives as sent")
    func valuesArriveAsSent() throws {
        let connection = try connectionWithTable()
        defer { connection.close() }
        let rows: [[PostgresValue]] = [
            [.int(1), .text("plain"), .int(0), .double(0.5), .bool(true), .bytes([])],
            [
                .int(2), .text("\"quoted\", {braced}, back\\slash, é, 🚗"), .int(-1), .double(-1e300), .bool(false),
                .bytes([0, 1, 0xFF, 0x5C]),
            ],
            [.int(3), .text(""), .int(Int64.max), .double(1.0 / 3.0), .null(.bool), .null(.bytea)],
            [.int(4), .null(.text), .null(.bigint), .null(.double), .bool(true), .bytes(Array("NULL".utf8))],
        ]
        try connection.transaction([PostgresStatement.rows(Self.insert, types: Self.types, rows: rows)!])
        let stored = try connection.query(
            PostgresStatement(
                "SELECT s, i::text, d::text, b::text, encode(x, 'hex') FROM t ORDER BY n"))
        let read = stored.map { row in (0..<5).map { row.text($0) } }
        #expect(
            read == [
                ["plain", "0", "0.5", "true", ""],
                ["\"quoted\", {braced}, back\\slash, é, 🚗", "-1", "-1e+300", "false", "0001ff5c"],
                ["", "9223372036854775807", "0.3333333333333333", nil, nil],
                [nil, nil, nil, "true", "4e554c4c"],
            ])
    }

    @Test("a statement is prepared once per connection, and a rolled-back transaction leaves it usable")
    func preparedOnce() throws {
        let connection = try connectionWithTable()
        defer { connection.close() }
        func insert(_ n: Int64) -> PostgresStatement {
            PostgresStatement.rows(
                Self.insert, types: Self.types,
                rows: [[.int(n), .text("row"), .int(n), .double(1), .bool(true), .bytes([1])]])!
        }
        let failing = PostgresStatement("SELECT 1 / 0")
        // Fails before the first use: the prepare is skipped, so the next use prepares it.
        #expect(throws: PostgresFailure.self) { try connection.transaction([failing, insert(1)]) }
        // Prepared, then the transaction fails after it: the statement stays prepared.
        #expect(throws: PostgresFailure.self) { try connection.transaction([insert(1), failing]) }
        try connection.transaction([insert(1)])
        try connection.transaction([insert(2), insert(3)])
        let rows = try connection.query(PostgresStatement("SELECT count(*) FROM t")).first { _ in true }?.text(0)
        #expect(rows == "3")
        let prepared = try connection.query(PostgresStatement("SELECT count(*) FROM pg_prepared_statements"))
            .first { _ in true }?.text(0)
        #expect(prepared == "1")
    }

    @Test("no rows make no statement")
    func noRows() {
        #expect(PostgresStatement.rows(Self.insert, types: Self.types, rows: []) == nil)
    }
}
