import RowCastDaemon
import Testing

/// `--store` values: which store each names, and a one-line reason for each it refuses.
struct StoreLocationTests {
    @Test("PostgreSQL and SQLite URLs name their stores; empty is SQLite in the state directory")
    func accepted() throws {
        #expect(try StoreLocation(parsing: "") == .stateDirectory)
        #expect(try StoreLocation(parsing: "sqlite:///var/lib/x") == .sqlite(directory: "/var/lib/x"))
        for url in [
            "postgresql://rowcast@db.example.com:5432/rowcast", "postgres://rowcast@127.0.0.1/feeds",
            "postgresql://rowcast@db1,db2/rowcast?target_session_attrs=read-write",
            "postgresql://rowcast@/rowcast?host=/run/postgresql",
        ] {
            #expect(try StoreLocation(parsing: url) == .postgresql(url: url))
        }
    }

    @Test(
        "a password in the URL, a missing server or database, and other schemes are refused, saying why",
        arguments: [
            ("postgresql://rowcast:secret@db/rowcast", "PGPASSWORD"),
            ("postgresql:///rowcast", "names no server"),
            ("postgresql://rowcast@db", "names no database"),
            ("postgresql://rowcast@db/", "names no database"),
            ("sqlite://relative/dir", "absolute path"),
            ("mysql://db/x", "postgresql://USER@HOST"),
            ("/var/lib/rowcast", "postgresql://USER@HOST"),
        ])
    func refused(text: String, reason: String) {
        #expect(throws: StoreLocationError.self) { try StoreLocation(parsing: text) }
        do {
            _ = try StoreLocation(parsing: text)
        } catch {
            #expect(error.description.contains(reason), "\(error)")
            #expect(!error.description.contains("secret"))
        }
    }
}
