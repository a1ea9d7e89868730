/// What a cell controller makes of an item: the reuse identifier of the cell, its height, the
/// content to configure it with and the actions it offers.
///
/// It serializes to exactly `{"cell":...,"height":...,"content":{...},"actions":[...]}`;
/// rowcastd adds `"id"` and `"type"` itself and never re-encodes these bytes.
public struct Row: Sendable, Equatable {
    /// The cell's reuse identifier, e.g. `ProductImageCell`.
    public var cell: String
    /// The row height in points.
    public var height: Double
    /// What the cell shows, keys in the order given.
    public var content: JSONObject
    /// What a subscriber can do with the row.
    public var actions: [RowAction]

    /// A row for `cell` with this height, content and actions.
    public init(cell: String, height: Double, content: JSONObject = JSONObject(), actions: [RowAction] = []) {
        self.cell = cell
        self.height = height
        self.content = content
        self.actions = actions
    }

    /// Appends the row's JSON.
    public func write(to writer: inout JSONWriter) {
        // The whole row through one stage: one copy into the writer's array for a usual row.
        writer.withStage { write(to: &$0) }
    }

    /// Appends the row's JSON to a stage.
    func write(to stage: inout JSONStage) {
        stage.writeRaw("{\"cell\":")
        stage.write(string: cell)
        stage.writeRaw(",\"height\":")
        stage.write(number: height)
        stage.writeRaw(",\"content\":")
        stage.write(object: content)
        stage.writeRaw(",\"actions\":[")
        for (offset, action) in actions.enumerated() {
            if offset > 0 { stage.writeRaw(",") }
            action.write(to: &stage)
        }
        stage.writeRaw("]}")
    }

    /// The row as compact JSON bytes.
    public func serialized() -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        write(to: &writer)
        return writer.bytes
    }
}
