import Logging
import RowCastEngine
import RowCastPostgres
import RowCastStore

extension Durability {
    /// The store's `synchronous` setting for this durability level.
    var synchronous: SQLiteFeedStore.Synchronous {
        switch self {
        case .normal: return .normal
        case .full: return .full
        }
    }
}

extension DaemonConfiguration {
    /// The state directory when none is given: the first directory of systemd's
    /// `$STATE_DIRECTORY` (set by `StateDirectory=`), else `./.rowcast`.
    /// - Parameter variable: the value of `$STATE_DIRECTORY`, if set.
    public static func defaultStateDirectory(variable: String?) -> String {
        if let value = variable, let first = value.split(separator: ":").first, !first.isEmpty {
            return String(first)
        }
        return DaemonConfiguration().stateDirectory
    }
}

extension DaemonConfiguration {
    /// Opens the store `store` names (`StoreLocation`): SQLite in the state directory or the
    /// named one, with `durability`; or the PostgreSQL database, whose durability is the
    /// server's `synchronous_commit`. A value that names no store was refused when the
    /// configuration was loaded.
    func openStore(logger: Logger) throws -> any FeedStore {
        switch try StoreLocation(parsing: store) {
        case .stateDirectory:
            return try SQLiteFeedStore(
                directory: stateDirectory, synchronous: durability.synchronous, acceptStateLoss: acceptStateLoss,
                logger: logger)
        case .sqlite(let directory):
            return try SQLiteFeedStore(
                directory: directory, synchronous: durability.synchronous, acceptStateLoss: acceptStateLoss,
                logger: logger)
        case .postgresql(let url):
            return try PostgreSQLFeedStore(url: url, logger: logger)
        }
    }

    /// `sqlite` or `postgresql`, for `status`.
    var storeKind: String {
        if case .postgresql = try? StoreLocation(parsing: store) { return "postgresql" }
        return "sqlite"
    }
}
