extension FeedDelta {
    /// The same delta with its sections and rows converted to another payload (parsed rows
    /// written back to bytes, say); indexes, ids and the header are kept.
    public func mapPayload<Other: DeltaPayload>(
        section: (Payload.Section) throws -> Other.Section, row: (Payload.Row) throws -> Other.Row
    ) rethrows -> FeedDelta<Other> {
        var other = FeedDelta<Other>()
        other.feed = feed
        other.epoch = epoch
        other.seq = seq
        other.deletedSections = deletedSections.map { .init(id: $0.id, at: $0.at) }
        other.insertedSections = try insertedSections.map {
            .init(id: $0.id, at: $0.at, section: try section($0.section), rows: try $0.rows.map(row))
        }
        other.movedSections = movedSections.map { .init(id: $0.id, from: $0.from, to: $0.to) }
        other.updatedSections = try updatedSections.map {
            .init(id: $0.id, at: $0.at, section: try section($0.section))
        }
        other.deletedRows = deletedRows.map { .init(id: $0.id, at: $0.at) }
        other.insertedRows = try insertedRows.map { .init(id: $0.id, at: $0.at, row: try row($0.row)) }
        other.movedRows = movedRows.map { .init(id: $0.id, from: $0.from, to: $0.to) }
        other.reconfiguredRows = try reconfiguredRows.map { .init(id: $0.id, at: $0.at, row: try row($0.row)) }
        other.reloadedRows = try reloadedRows.map { .init(id: $0.id, at: $0.at, row: try row($0.row)) }
        return other
    }
}
