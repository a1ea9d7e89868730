import RowCastEngine
import RowCastPostgres
import RowCastStore
import RowCastTesting
import Testing

/// The store implementations the conformance suite (`FeedStoreConformanceTests`) runs against.
/// An implementation joins the suite by adding a case and a `StorePlace` that opens it.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `SQLiteFeedStore` in a scratch directory.
    case sqlite
    /// `PostgreSQLFeedStore` in a new database of the suite's server (`PostgreSQLTestServer`).
    case postgresql

    /// The kinds that run here: PostgreSQL only where it is installed, or under CI (where it
    /// must be, so its tests fail when it is not).
    static var allCases: [StoreKind] { PostgreSQLTestServer.testsEnabled ? [.sqlite, .postgresql] : [.sqlite] }

    var testDescription: String { rawValue }

    /// A new, empty place for a store of this kind.
    func makePlace() throws -> any StorePlace {
        switch self {
        case .sqlite: try SQLitePlace()
        case .postgresql: try PostgreSQLPlace()
        }
    }
}

/// Where one store lives across restarts: `open` after the previous store's `close` is a
/// restart of the process that used it.
protocol StorePlace: AnyObject {
    /// A store over this place's state.
    func open() throws -> any FeedStore
}

/// A scratch directory holding an SQLite store.
final class SQLitePlace: StorePlace {
    private let directory: ScratchDirectory

    init() throws { directory = try ScratchDirectory("rowcast-store") }

    func open() throws -> any FeedStore {
        try SQLiteFeedStore(directory: directory.path, synchronous: .normal)
    }
}

/// A new database on the suite's shared PostgreSQL server.
final class PostgreSQLPlace: StorePlace {
    let url: String

    init() throws { url = try PostgreSQLTestServer.shared().makeDatabase() }

    func open() throws -> any FeedStore {
        try PostgreSQLFeedStore(url: url)
    }
}
