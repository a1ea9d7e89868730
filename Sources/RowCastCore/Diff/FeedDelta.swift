/// The batch update that turns one snapshot into the next, in UIKit's terms: deletes and move
/// sources by old index, inserts and move targets by new index, content changes by new index.
/// It carries the bytes of every row and section it sends. See docs/PROTOCOL.md ("Applying a
/// delta").
public struct FeedDelta: Sendable, Equatable {
    /// A section deleted from the old index `at`.
    public struct SectionDeletion: Sendable, Equatable {
        /// The section id.
        public var id: String
        /// The index in the old snapshot.
        public var at: Int
    }

    /// A section inserted at the new index `at`, with its rows.
    public struct SectionInsertion: Sendable, Equatable {
        /// The section id.
        public var id: String
        /// The index in the new snapshot.
        public var at: Int
        /// The section object.
        public var section: [UInt8]
        /// Its rows, in order.
        public var rows: [[UInt8]]
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

    /// A section whose object (declaration or header row) changed, at its new index.
    public struct SectionUpdate: Sendable, Equatable {
        /// The section id.
        public var id: String
        /// The index in the new snapshot.
        public var at: Int
        /// The new section object.
        public var section: [UInt8]
    }

    /// A row deleted from an old index path.
    public struct RowDeletion: Sendable, Equatable {
        /// The row id.
        public var id: String
        /// The index path in the old snapshot.
        public var at: IndexPath
    }

    /// A row sent with its content at a new index path (insert, reconfigure, reload).
    public struct RowContent: Sendable, Equatable {
        /// The row id.
        public var id: String
        /// The index path in the new snapshot.
        public var at: IndexPath
        /// The row object.
        public var row: [UInt8]
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
    /// Sections whose object changed (new indexes).
    public var updatedSections: [SectionUpdate] = []
    /// Rows deleted (old index paths, ascending).
    public var deletedRows: [RowDeletion] = []
    /// Rows inserted (new index paths, ascending).
    public var insertedRows: [RowContent] = []
    /// Rows moved (ascending by new index path).
    public var movedRows: [RowMove] = []
    /// Rows with new content and the same cell (new index paths).
    public var reconfiguredRows: [RowContent] = []
    /// Rows with a different cell (new index paths).
    public var reloadedRows: [RowContent] = []

    /// An empty delta.
    public init() {}

    /// Whether the delta changes nothing.
    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && movedSections.isEmpty && updatedSections.isEmpty
            && deletedRows.isEmpty && insertedRows.isEmpty && movedRows.isEmpty
            && reconfiguredRows.isEmpty && reloadedRows.isEmpty
    }

    /// Puts every list in the order the protocol promises.
    mutating func normalizeOrder() {
        deletedSections.sort { $0.at < $1.at }
        insertedSections.sort { $0.at < $1.at }
        movedSections.sort { $0.to < $1.to }
        updatedSections.sort { $0.at < $1.at }
        deletedRows.sort { $0.at < $1.at }
        insertedRows.sort { $0.at < $1.at }
        movedRows.sort { $0.to < $1.to }
        reconfiguredRows.sort { $0.at < $1.at }
        reloadedRows.sort { $0.at < $1.at }
    }
}
