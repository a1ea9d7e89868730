import RowCastKit

/// Writes a delta as the JSON of docs/PROTOCOL.md ("Deltas"), splicing in the stored bytes of
/// the rows and sections it carries without re-encoding them.
public enum DeltaEncoder {
    /// The delta message body for `feed` at `seq`, with rows and sections taken from `new`.
    public static func encode(_ delta: FeedDelta, feed: String, epoch: String, seq: UInt64, new: FeedSnapshot) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.writeRaw("{\"event\":\"delta\",\"feed\":")
        writer.write(string: feed)
        writer.writeRaw(",\"epoch\":")
        writer.write(string: epoch)
        writer.writeRaw(",\"seq\":")
        writer.write(integer: Int64(seq))

        writer.writeRaw(",\"sections\":{\"deleted\":[")
        for (offset, entry) in delta.deletedSections.enumerated() {
            if offset > 0 { writer.writeRaw(",") }
            writeID(entry.id, &writer)
            writer.writeRaw(",\"at\":")
            writer.write(integer: Int64(entry.at))
            writer.writeRaw("}")
        }
        writer.writeRaw("],\"inserted\":[")
        for (offset, entry) in delta.insertedSections.enumerated() {
            if offset > 0 { writer.writeRaw(",") }
            let section = new.sections[entry.at]
            writeID(entry.id, &writer)
            writer.writeRaw(",\"at\":")
            writer.write(integer: Int64(entry.at))
            writer.writeRaw(",\"section\":")
            writer.writeRaw(section.bytes)
            writer.writeRaw(",\"rows\":[")
            for (rowOffset, row) in section.rows.enumerated() {
                if rowOffset > 0 { writer.writeRaw(",") }
                writer.writeRaw(row.bytes)
            }
            writer.writeRaw("]}")
        }
        writer.writeRaw("],\"moved\":[")
        for (offset, entry) in delta.movedSections.enumerated() {
            if offset > 0 { writer.writeRaw(",") }
            writeID(entry.id, &writer)
            writer.writeRaw(",\"from\":")
            writer.write(integer: Int64(entry.from))
            writer.writeRaw(",\"to\":")
            writer.write(integer: Int64(entry.to))
            writer.writeRaw("}")
        }
        writer.writeRaw("],\"updated\":[")
        for (offset, entry) in delta.updatedSections.enumerated() {
            if offset > 0 { writer.writeRaw(",") }
            writeID(entry.id, &writer)
            writer.writeRaw(",\"at\":")
            writer.write(integer: Int64(entry.at))
            writer.writeRaw(",\"section\":")
            writer.writeRaw(new.sections[entry.at].bytes)
            writer.writeRaw("}")
        }

        writer.writeRaw("]},\"rows\":{\"deleted\":[")
        writePaths(delta.deletedRows, withRows: nil, &writer)
        writer.writeRaw("],\"inserted\":[")
        writePaths(delta.insertedRows, withRows: new, &writer)
        writer.writeRaw("],\"moved\":[")
        for (offset, entry) in delta.movedRows.enumerated() {
            if offset > 0 { writer.writeRaw(",") }
            writeID(entry.id, &writer)
            writer.writeRaw(",\"from\":")
            writePath(entry.from, &writer)
            writer.writeRaw(",\"to\":")
            writePath(entry.to, &writer)
            writer.writeRaw("}")
        }
        writer.writeRaw("],\"reconfigured\":[")
        writePaths(delta.reconfiguredRows, withRows: new, &writer)
        writer.writeRaw("],\"reloaded\":[")
        writePaths(delta.reloadedRows, withRows: new, &writer)
        writer.writeRaw("]}}")
        return writer.bytes
    }

    private static func writeID(_ id: String, _ writer: inout JSONWriter) {
        writer.writeRaw("{\"id\":")
        writer.write(string: id)
    }

    private static func writePath(_ path: IndexPath, _ writer: inout JSONWriter) {
        writer.writeRaw("[")
        writer.write(integer: Int64(path.section))
        writer.writeRaw(",")
        writer.write(integer: Int64(path.row))
        writer.writeRaw("]")
    }

    private static func writePaths(_ entries: [FeedDelta.RowChange], withRows snapshot: FeedSnapshot?, _ writer: inout JSONWriter) {
        for (offset, entry) in entries.enumerated() {
            if offset > 0 { writer.writeRaw(",") }
            writeID(entry.id, &writer)
            writer.writeRaw(",\"at\":")
            writePath(entry.at, &writer)
            if let snapshot {
                writer.writeRaw(",\"row\":")
                writer.writeRaw(snapshot.sections[entry.at.section].rows[entry.at.row].bytes)
            }
            writer.writeRaw("}")
        }
    }
}
