/// Why a delta could not be applied to a ``FeedReplica``, or a snapshot could not be read.
///
/// Every kind except ``Kind/invalidSnapshot`` means the replica has missed or misread
/// something: discard it and load a fresh snapshot (``ReplicaSession`` does that itself).
/// The replica that refused the delta is left exactly as it was before.
public struct ReplicaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of violation a replica detects.
    public enum Kind: String, Sendable, Equatable {
        /// The delta's `seq` is more than one past the replica's: deltas were missed.
        case gap
        /// The delta belongs to another history (`epoch`) of the feed.
        case epochChanged = "epoch_changed"
        /// The delta is for another feed.
        case feedMismatch = "feed_mismatch"
        /// The delta is not shaped as PROTOCOL.md says (a missing or mistyped member).
        case invalidDelta = "invalid_delta"
        /// An index or index path lies outside the sections or rows it refers to.
        case indexOutOfBounds = "index_out_of_bounds"
        /// The row or section at an index is not the one the delta names.
        case idMismatch = "id_mismatch"
        /// After applying, two rows or two sections would share an id.
        case duplicateID = "duplicate_id"
        /// A snapshot reply is not shaped as PROTOCOL.md says.
        case invalidSnapshot = "invalid_snapshot"
    }

    /// What kind of violation this is.
    public let kind: Kind
    /// What exactly was wrong, naming the feed, `seq`, index or id.
    public let message: String

    /// An error of `kind` explained by `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Whether the cure is a fresh snapshot (every kind but an invalid snapshot).
    public var needsResync: Bool { kind != .invalidSnapshot }

    /// "kind: message".
    public var description: String { "\(kind.rawValue): \(message)" }
}
