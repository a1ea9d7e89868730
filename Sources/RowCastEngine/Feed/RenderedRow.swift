/// A row as a plugin rendered it, ready to send: its reuse identifier and its exact JSON bytes
/// (`{"id","type","cell","height","content","actions"}`), which are never re-encoded.
public struct RenderedRow: Sendable, Equatable {
    /// The cell reuse identifier; a change of cell makes an update a reload.
    public var cell: String
    /// The row's JSON object, as sent in snapshots and deltas.
    public var bytes: [UInt8]

    /// A row from its parts.
    public init(cell: String, bytes: [UInt8]) {
        self.cell = cell
        self.bytes = bytes
    }
}
