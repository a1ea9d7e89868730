import RowCastJSON

/// The identity checks stage 1 of a delta makes of its rows, shared by the full application
/// and ``InPlaceRowChanges``: a row taken out (deleted or moved) must be the one at its old
/// index path and be taken once; a row put in (inserted or moved) must not be in the feed
/// already afterwards.
struct RowIdentityCheck {
    /// The old snapshot's sections.
    let oldSections: [ReplicaSection]
    /// The old snapshot's row ids.
    let rowIDs: Set<String>
    /// "feed F, delta seq N", for messages.
    let context: String
    /// The old row indexes taken, by section.
    private(set) var taken: [Int: Set<Int>] = [:]
    /// Row ids that left the feed or their place.
    private(set) var removedRowIDs = Set<String>()
    /// Row ids that took a place.
    private(set) var addedRowIDs = Set<String>()

    /// A check against the old snapshot of `replica`.
    init(_ replica: FeedReplica, context: String) {
        oldSections = replica.sections
        rowIDs = replica.rowIDs
        self.context = context
    }

    /// The error `kind` with `problem`, after the context.
    func fail(_ kind: ReplicaError.Kind, _ problem: String) -> ReplicaError {
        ReplicaError(kind, "\(context): \(problem)")
    }

    /// The row `id` at old index path `path` (named by row list `list`), recorded as taken.
    mutating func take(_ id: String, at path: RowIndexPath, list: String) throws(ReplicaError) -> JSONValue {
        guard path.section < oldSections.count, path.row < oldSections[path.section].rows.count else {
            throw fail(.indexOutOfBounds, "rows.\(list) names row \"\(id)\" at \(path), outside the old snapshot")
        }
        let row = oldSections[path.section].rows[path.row]
        guard row.rowID == id else {
            throw fail(
                .idMismatch, "rows.\(list) names row \"\(id)\" at \(path), but the row there is \"\(row.rowID ?? "?")\""
            )
        }
        guard taken[path.section, default: []].insert(path.row).inserted else {
            throw fail(.invalidDelta, "row \"\(id)\" at \(path) is deleted or moved twice")
        }
        removedRowIDs.insert(id)
        return row
    }

    /// Records that row `id` left the feed with its section.
    mutating func removeWithSection(_ id: String) { removedRowIDs.insert(id) }

    /// Records that row `id` takes a place (`source` names the list), failing when the feed
    /// would then hold it twice.
    mutating func add(_ id: String, _ source: String) throws(ReplicaError) {
        let stillThere = rowIDs.contains(id) && !removedRowIDs.contains(id)
        guard !stillThere, addedRowIDs.insert(id).inserted else {
            throw fail(.duplicateID, "\(source) adds row \"\(id)\", which the feed would then hold twice")
        }
    }
}
