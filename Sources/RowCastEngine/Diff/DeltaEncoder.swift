import RowCastJSON

/// Writes a delta as the JSON of docs/PROTOCOL.md ("Deltas"), splicing in the stored bytes of
/// the rows and sections it carries without re-encoding them.
public enum DeltaEncoder {
    /// The delta message body for `feed` at `seq`.
    public static func encode(_ delta: FeedDelta, feed: String, epoch: String, seq: UInt64) -> [UInt8] {
        var writer = JSONWriter(capacity: 256 + delta.payloadSize)
        writer.writeRaw("{\"event\":\"delta\",\"feed\":")
        writer.write(string: feed)
        writer.writeRaw(",\"epoch\":")
        writer.write(string: epoch)
        writer.writeRaw(",\"seq\":")
        writer.write(integer: Int64(seq))

        writer.writeRaw(",\"sections\":{\"deleted\":[")
        writeList(delta.deletedSections, &writer) { entry, writer in
            writeID(entry.id, &writer)
            writer.writeRaw(",\"at\":")
            writer.write(integer: Int64(entry.at))
        }
        writer.writeRaw("],\"inserted\":[")
        writeList(delta.insertedSections, &writer) { entry, writer in
            writeID(entry.id, &writer)
            writer.writeRaw(",\"at\":")
            writer.write(integer: Int64(entry.at))
            writer.writeRaw(",\"section\":")
            writer.writeRaw(entry.section)
            writer.writeRaw(",\"rows\":[")
            for (offset, row) in entry.rows.enumerated() {
                if offset > 0 { writer.writeRaw(",") }
                writer.writeRaw(row)
            }
            writer.writeRaw("]")
        }
        writer.writeRaw("],\"moved\":[")
        writeList(delta.movedSections, &writer) { entry, writer in
            writeID(entry.id, &writer)
            writer.writeRaw(",\"from\":")
            writer.write(integer: Int64(entry.from))
            writer.writeRaw(",\"to\":")
            writer.write(integer: Int64(entry.to))
        }
        writer.writeRaw("],\"updated\":[")
        writeList(delta.updatedSections, &writer) { entry, writer in
            writeID(entry.id, &writer)
            writer.writeRaw(",\"at\":")
            writer.write(integer: Int64(entry.at))
            writer.writeRaw(",\"section\":")
            writer.writeRaw(entry.section)
        }

        writer.writeRaw("]},\"rows\":{\"deleted\":[")
        writeList(delta.deletedRows, &writer) { entry, writer in
            writeID(entry.id, &writer)
            writer.writeRaw(",\"at\":")
            writePath(entry.at, &writer)
        }
        writer.writeRaw("],\"inserted\":[")
        writeContents(delta.insertedRows, &writer)
        writer.writeRaw("],\"moved\":[")
        writeList(delta.movedRows, &writer) { entry, writer in
            writeID(entry.id, &writer)
            writer.writeRaw(",\"from\":")
            writePath(entry.from, &writer)
            writer.writeRaw(",\"to\":")
            writePath(entry.to, &writer)
        }
        writer.writeRaw("],\"reconfigured\":[")
        writeContents(delta.reconfiguredRows, &writer)
        writer.writeRaw("],\"reloaded\":[")
        writeContents(delta.reloadedRows, &writer)
        writer.writeRaw("]}}")
        return writer.bytes
    }

    /// Writes `{entry},{entry}...`: the body writes an entry's members after its opening brace.
    private static func writeList<Entry>(
        _ entries: [Entry], _ writer: inout JSONWriter, _ body: (Entry, inout JSONWriter) -> Void
    ) {
        for (offset, entry) in entries.enumerated() {
            if offset > 0 { writer.writeRaw(",") }
            body(entry, &writer)
            writer.writeRaw("}")
        }
    }

    private static func writeContents(_ entries: [FeedDelta.RowContent], _ writer: inout JSONWriter) {
        // The same JSON as `writeList` with `writeID` and `writePath`, with the punctuation
        // between the values joined into fewer literals: a row per item goes through here, and
        // each literal is a call and a copy of its own.
        for (offset, entry) in entries.enumerated() {
            writer.writeRaw(offset > 0 ? ",{\"id\":" : "{\"id\":")
            writer.write(string: entry.id)
            writer.writeRaw(",\"at\":[")
            writer.write(integer: Int64(entry.at.section))
            writer.writeRaw(",")
            writer.write(integer: Int64(entry.at.row))
            writer.writeRaw("],\"row\":")
            writer.writeRaw(entry.row)
            writer.writeRaw("}")
        }
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
}

extension FeedDelta {
    /// Roughly how many bytes of rows and sections the delta carries (to size the buffer).
    var payloadSize: Int {
        var size = 0
        for entry in insertedSections { size += entry.section.count + entry.rows.reduce(0) { $0 + $1.count + 1 } }
        for entry in updatedSections { size += entry.section.count + 32 }
        for list in [insertedRows, reconfiguredRows, reloadedRows] {
            for entry in list { size += entry.row.count + 48 }
        }
        return size + (deletedRows.count + movedRows.count) * 48
    }
}
