import RowCastEngine
import RowCastPostgres
import RowCastTesting
import Testing

/// What only the PostgreSQL store does: its schema version, its lock, and its errors.
@Suite(.enabled(if: PostgreSQLTestServer.testsEnabled))
struct PostgreSQLFeedStoreTests {
    @Test("a schema written by a newer rowcastd is refused with exit 65, naming both versions")
    func newerSchema() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        try PostgreSQLFeedStore(url: url).close()
        try PostgreSQLTestServer.shared().execute("UPDATE rowcast.meta SET value = '99' WHERE key = 'schema'", url: url)
        do {
            _ = try PostgreSQLFeedStore(url: url)
            Issue.record("a newer schema was opened")
        } catch {
            #expect(error.kind == .newerSchema && error.exitStatus == 65, "\(error)")
            #expect(error.message.contains("schema version 99"), "\(error)")
        }
    }

    @Test("a second store on the same database is refused while the first is open, and opens once it closed")
    func oneStorePerDatabase() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let first = try PostgreSQLFeedStore(url: url)
        do {
            _ = try PostgreSQLFeedStore(url: url)
            Issue.record("a second store opened")
        } catch {
            #expect(error.kind == .locked && error.exitStatus == 75, "\(error)")
        }
        first.close()
        try PostgreSQLFeedStore(url: url).close()
    }

    @Test("a server that cannot be reached is unavailable, exit 69, naming the URL")
    func unreachable() throws {
        let server = try PostgreSQLTestServer.shared()
        let url = "postgresql://postgres@127.0.0.1:\(server.port)/no_such_database"
        do {
            _ = try PostgreSQLFeedStore(url: url)
            Issue.record("a missing database opened")
        } catch {
            #expect(error.kind == .unavailable && error.exitStatus == 69, "\(error)")
            #expect(error.message.contains(url) && error.message.contains("no_such_database"), "\(error)")
        }
    }
}
