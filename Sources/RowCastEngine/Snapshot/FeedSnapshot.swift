/// A feed's visible state at one `seq`: ordered sections of ordered rows, each kept as the
/// exact bytes that go on the wire. Deltas are the difference of two snapshots.
public struct FeedSnapshot: Sendable, Equatable {
    /// One row in a snapshot.
    public struct Row: Sendable, Equatable {
        /// The row's (item's) id.
        public var id: String
        /// The cell reuse identifier.
        public var cell: String
        /// The row's JSON object.
        public var bytes: [UInt8]

        /// A row from its parts.
        public init(id: String, cell: String, bytes: [UInt8]) {
            self.id = id
            self.cell = cell
            self.bytes = bytes
        }
    }

    /// One section in a snapshot.
    public struct Section: Sendable, Equatable {
        /// The section id.
        public var id: String
        /// The section object without rows (`{"id","order","type","header","headerRow"}`).
        public var bytes: [UInt8]
        /// The rows, in order.
        public var rows: [Row]

        /// A section from its parts.
        public init(id: String, bytes: [UInt8], rows: [Row]) {
            self.id = id
            self.bytes = bytes
            self.rows = rows
        }
    }

    /// The sections, in order.
    public var sections: [Section]

    /// A snapshot with these sections.
    public init(sections: [Section] = []) { self.sections = sections }

    /// How many rows the snapshot has in all.
    public var rowCount: Int { sections.reduce(0) { $0 + $1.rows.count } }
}
