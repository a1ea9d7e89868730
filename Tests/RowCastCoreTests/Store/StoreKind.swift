import RowCastEngine
import RowCastStore
import Testing

/// The store implementations the conformance suite (`FeedStoreConformanceTests`) runs against.
/// An implementation joins the suite by adding a case and a `StorePlace` that opens it.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `SQLiteFeedStore` in a scratch directory.
    case sqlite

    var testDescription: String { rawValue }

    /// A new, empty place for a store of this kind.
    func makePlace() throws -> any StorePlace {
        switch self {
        case .sqlite: try SQLitePlace()
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
