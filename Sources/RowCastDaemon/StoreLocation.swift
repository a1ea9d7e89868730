/// Which durable store rowcastd uses (`--store`, `store:`): SQLite in the state directory
/// when none is given, SQLite in a named directory (`sqlite:///path`), or a PostgreSQL
/// database (`postgresql://USER@HOST:PORT/DB`, whose password comes from `PGPASSWORD` or a
/// passfile, never from the URL).
public enum StoreLocation: Equatable, Sendable {
    /// `rowcast.db` in the state directory (`--state-dir`): the embedded default.
    case stateDirectory
    /// `rowcast.db` in this directory.
    case sqlite(directory: String)
    /// This PostgreSQL URL, as given.
    case postgresql(url: String)

    /// The forms a store takes, in words, for error messages and help.
    public static let allowed =
        "postgresql://USER@HOST[:PORT]/DATABASE (password from PGPASSWORD or a passfile), sqlite:///DIRECTORY, or \"\" for SQLite in the state directory"

    /// The store `text` names; throws a one-line reason when it names none.
    public init(parsing text: String) throws(StoreLocationError) {
        if text.isEmpty {
            self = .stateDirectory
            return
        }
        if text.hasPrefix("sqlite://") {
            let path = String(text.dropFirst("sqlite://".count))
            guard path.hasPrefix("/"), path.count > 1 else {
                throw StoreLocationError("an SQLite store is sqlite:///DIRECTORY with an absolute path, got \(text)")
            }
            self = .sqlite(directory: path)
            return
        }
        let scheme = ["postgresql://", "postgres://"].first { text.hasPrefix($0) }
        guard let scheme else {
            throw StoreLocationError("must be \(Self.allowed), got \(text)")
        }
        let rest = text.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        if let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") {
            throw StoreLocationError(
                "the store URL carries a password: give it in PGPASSWORD or a passfile (PGPASSFILE, ~/.pgpass) instead, so it is not on the command line or in the configuration file"
            )
        }
        let host = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        let path = rest.dropFirst(authority.count)
        guard !host.isEmpty || path.contains("host=") else {
            throw StoreLocationError(
                "the store URL names no server: use postgresql://USER@HOST[:PORT]/DATABASE, got \(text)")
        }
        guard path.hasPrefix("/"), path.count > 1, !path.hasPrefix("/?") else {
            throw StoreLocationError(
                "the store URL names no database: use postgresql://USER@HOST[:PORT]/DATABASE, got \(text)")
        }
        self = .postgresql(url: text)
    }
}

/// Why a `--store` value names no store.
public struct StoreLocationError: Error, CustomStringConvertible, Sendable {
    /// One line.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
