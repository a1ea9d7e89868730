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
