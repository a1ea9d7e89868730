/// Why the durable store cannot be used, or could not commit: what happened, to which file,
/// and what to do. At start it stops rowcastd with `exitStatus`; during a run a failed commit
/// turns into `storage_error` replies.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// The kinds of store failure, each with its own exit status.
    public enum Kind: String, Sendable {
        /// The state directory or the database file cannot be created, opened for writing or
        /// written (permissions, a read-only file system, a path that is not a directory).
        case unwritable
        /// The disk (or the file-size limit) is full.
        case full
        /// Another rowcastd holds the state directory.
        case locked
        /// The database file is damaged or is not an SQLite database.
        case corrupt
        /// The database was written by a newer rowcastd whose schema this build does not know.
        case newerSchema = "newer_schema"
        /// The file is an SQLite database of some other program.
        case foreign
        /// The database lacks history that `rowcast.position` shows it reached (missing,
        /// empty, another store, or behind): a person must accept the loss.
        case lost
        /// The store's server cannot be reached, or the connection to it broke (PostgreSQL):
        /// the next call connects again.
        case unavailable
        /// A cluster node's commit touched a partition whose lease it does not hold (any more):
        /// another node took it over, or this node never had it. Nothing of the commit was
        /// written.
        case fenced
        /// Any other I/O or SQLite failure.
        case io
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The file or directory concerned.
    public var path: String
    /// One or two sentences: what happened to `path`, and what to do.
    public var message: String

    /// An error from its parts.
    public init(_ kind: Kind, path: String, message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    /// The exit status rowcastd stops with when the store cannot be opened (sysexits.h):
    /// 65 (`EX_DATAERR`) when the file itself needs a person (corrupt, newer, foreign, lost), 73
    /// (`EX_CANTCREAT`) when it cannot be written, 75 (`EX_TEMPFAIL`) when another rowcastd
    /// holds it (or another node a partition), 69 (`EX_UNAVAILABLE`) when the store's server cannot be reached, 74
    /// (`EX_IOERR`) otherwise.
    public var exitStatus: Int32 {
        switch kind {
        case .corrupt, .newerSchema, .foreign, .lost: return 65
        case .unwritable, .full: return 73
        case .locked, .fenced: return 75
        case .unavailable: return 69
        case .io: return 74
        }
    }

    /// The message.
    public var description: String { message }
}
