/// One delta of a feed (docs/PROTOCOL.md, "Deltas"): the batch update that turns the feed's
/// state at `seq - 1` into its state at `seq`, in UIKit's terms. Deletes and move sources are
/// old indexes, inserts, move targets and content changes new ones.
///
/// One model for both ends of the wire: rowcastd's diff fills it with stored bytes
/// (``EncodedPayload``) and encodes it; a client decodes a published delta into it with
/// parsed values (``ParsedPayload``) and applies it.
public struct FeedDelta<Payload: DeltaPayload>: Sendable, Equatable {
    /// A section removed with every row it still had, at its old index.
    public struct SectionDeletion: Sendable, Equatable {
        /// The section id.
        public var id: String
        /// Its index in the old section list.
        public var at: Int

        /// A deletion of section `id` at old index `at`.
        public init(id: String, at: Int) {
            self.id = id
            self.at = at
        }
    }

    /// A section added with its rows, at its new index.
    public struct SectionInsertion: Sendable, Equatable {
        /// The section id.
        public var id: String
        /// Its index in the new section list.
        public var at: Int
        /// The section object.
        public var section: Payload.Section
        /// Its rows, in order.
        public var rows: [Payload.Row]

        /// An insertion of section `id` at new index `at`, with `rows`.
        public init(id: String, at: Int, section: Payload.Section, rows: [Payload.Row]) {
            self.id = id
            self.at = at
            self.section = section
            self.rows = rows
        }
    }

    /// A section that moved, keeping the rows no row entry took out of it.
    public struct SectionMove: Sendable, Equatable {
        /// The section id.
        public var id: String
        /// Its index in the old section list.
        public var from: Int
        /// Its index in the new section list.
        public var to: Int

        /// A move of section `id` from old index `from` to new index `to`.
        public init(id: String, from: Int, to: Int) {
            self.id = id
            self.from = from
            self.to = to
        }
    }

    /// A section whose object (declaration or header row) changed; its rows are not touched.
    public struct SectionUpdate: Sendable, Equatable {
        /// The section id.
        public var id: String
        /// Its index in the new section list.
        public var at: Int
        /// The new section object.
        public var section: Payload.Section

        /// An update of section `id` at new index `at`.
        public init(id: String, at: Int, section: Payload.Section) {
            self.id = id
            self.at = at
            self.section = section
        }
    }

    /// A row removed, at its old index path.
    public struct RowDeletion: Sendable, Equatable {
        /// The row id.
        public var id: String
        /// Its index path in the old snapshot.
        public var at: RowIndexPath

        /// A deletion of row `id` at old index path `at`.
        public init(id: String, at: RowIndexPath) {
            self.id = id
            self.at = at
        }
    }

    /// A row sent with its content at a new index path (inserted, reconfigured or reloaded).
    public struct RowContent: Sendable, Equatable {
        /// The row id.
        public var id: String
        /// Its index path in the new snapshot.
        public var at: RowIndexPath
        /// The rendered row.
        public var row: Payload.Row

        /// Row `id` with content `row` at new index path `at`.
        public init(id: String, at: RowIndexPath, row: Payload.Row) {
            self.id = id
            self.at = at
            self.row = row
        }
    }

    /// A row that moved from an old index path to a new one.
    public struct RowMove: Sendable, Equatable {
        /// The row id.
        public var id: String
        /// Its index path in the old snapshot.
        public var from: RowIndexPath
        /// Its index path in the new snapshot.
        public var to: RowIndexPath

        /// A move of row `id` from old index path `from` to new index path `to`.
        public init(id: String, from: RowIndexPath, to: RowIndexPath) {
            self.id = id
            self.from = from
            self.to = to
        }
    }

    /// The name RowCastClient has always used for ``RowContent``.
    public typealias RowPlacement = RowContent

    /// The feed this delta changes (empty until rowcastd encodes it with its feed).
    public var feed: String = ""
    /// The feed's history this delta belongs to (empty until encoded).
    public var epoch: String = ""
    /// The sequence number the feed has once this delta is applied (0 until encoded).
    public var seq: Int = 0
    /// Sections removed (old indexes, ascending).
    public var deletedSections: [SectionDeletion] = []
    /// Sections added with their rows (new indexes, ascending).
    public var insertedSections: [SectionInsertion] = []
    /// Sections moved (ascending by new index).
    public var movedSections: [SectionMove] = []
    /// Sections whose object changed (new indexes).
    public var updatedSections: [SectionUpdate] = []
    /// Rows removed (old index paths, ascending).
    public var deletedRows: [RowDeletion] = []
    /// Rows added (new index paths, ascending).
    public var insertedRows: [RowContent] = []
    /// Rows moved (ascending by new index path).
    public var movedRows: [RowMove] = []
    /// Rows whose content changed, same cell (update in place; new index paths).
    public var reconfiguredRows: [RowContent] = []
    /// Rows whose cell changed (a new cell; new index paths).
    public var reloadedRows: [RowContent] = []

    /// An empty delta. This and the two checks below are inlinable so that callers use them
    /// specialized for their payload: unspecialized, each looked up the generic metadata of
    /// every list's element type (6,000 instructions of a one-item batch; the `trickle` path of
    /// `rowcast-bench instructions` guards it).
    @inlinable
    public init() {}

    /// Whether the delta changes nothing.
    @inlinable
    public var isEmpty: Bool {
        changesContentsOnly && updatedSections.isEmpty && reconfiguredRows.isEmpty && reloadedRows.isEmpty
    }

    /// Whether the delta only replaces rows and section objects (`reconfigured`, `reloaded`,
    /// section `updated`) and inserts, deletes and moves nothing.
    @inlinable
    public var changesContentsOnly: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && movedSections.isEmpty
            && deletedRows.isEmpty && insertedRows.isEmpty && movedRows.isEmpty
    }

    /// Puts every list in the order the protocol promises. Inlinable so that the sorts are
    /// specialized for the caller's payload: unspecialized, each comparison and each move of an
    /// element went through value witnesses, and the sort was a twelfth of rowcastd's engine.
    @inlinable
    public mutating func normalizeOrder() {
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
