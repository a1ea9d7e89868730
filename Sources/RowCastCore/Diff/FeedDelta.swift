/// The batch update that turns one snapshot into the next, in UIKit's terms: deletes and move
/// sources by old index, inserts and move targets by new index, content changes by new index.
/// See docs/PROTOCOL.md ("Applying a delta").
public struct FeedDelta: Sendable, Equatable {
    /// A section deleted from the old index `at`.
    public struct SectionDeletion: Sendable, Equatable {
        /// The section id.
        public var id: String
        /// The index in the old snapshot.
        public var at: Int
    }

    /// A section inserted at the new index `at`, rows included.
    public struct SectionInsertion: Sendable, Equatable {
        /// The section id.
        public var id: String
        /// The index in the new snapshot.
        public var at: Int
    }

    /// A section moved from old index `from` to new index `to`.
    public struct SectionMove: Sendable, Equatable {
        /// The section id.
        public var id: String
        /// The index in the old snapshot.
        public var from: Int
        /// The index in the new snapshot.
        public var to: Int
    }

    /// A row at an index path (old for deletes, new for inserts and changes).
    public struct RowChange: Sendable, Equatable {
        /// The row id.
        public var id: String
        /// The index path.
        public var at: IndexPath
    }

    /// A row moved from an old index path to a new one.
    public struct RowMove: Sendable, Equatable {
        /// The row id.
        public var id: String
        /// The index path in the old snapshot.
        public var from: IndexPath
        /// The index path in the new snapshot.
        public var to: IndexPath
    }

    /// Sections deleted (old indexes, ascending).
    public var deletedSections: [SectionDeletion] = []
    /// Sections inserted (new indexes, ascending).
    public var insertedSections: [SectionInsertion] = []
    /// Sections moved.
    public var movedSections: [SectionMove] = []
    /// Sections whose header or declaration changed (new indexes).
    public var updatedSections: [SectionInsertion] = []
    /// Rows deleted (old index paths).
    public var deletedRows: [RowChange] = []
    /// Rows inserted (new index paths).
    public var insertedRows: [RowChange] = []
    /// Rows moved (old to new index paths).
    public var movedRows: [RowMove] = []
    /// Rows with new content and the same cell (new index paths).
    public var reconfiguredRows: [RowChange] = []
    /// Rows with a different cell (new index paths).
    public var reloadedRows: [RowChange] = []

    /// An empty delta.
    public init() {}

    /// Whether the delta changes nothing.
    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && movedSections.isEmpty && updatedSections.isEmpty
            && deletedRows.isEmpty && insertedRows.isEmpty && movedRows.isEmpty
            && reconfiguredRows.isEmpty && reloadedRows.isEmpty
    }
}
