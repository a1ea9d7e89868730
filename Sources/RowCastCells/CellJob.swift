import RowCastJSON

/// One row a declarative cell renders: an item or a section header, with its cell.
struct CellJob: Sendable {
    /// A section header (else an item).
    var header: Bool
    /// The item's (or section's) JSON.
    var input: [UInt8]
    /// The cell that renders it.
    var definition: CellDefinition
}
