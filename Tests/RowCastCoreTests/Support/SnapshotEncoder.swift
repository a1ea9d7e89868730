import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON

/// Writes a `FeedSnapshot`'s sections as the JSON array of docs/PROTOCOL.md, for tests that
/// build snapshot replies from hand-made snapshots (the daemon writes them with
/// `Feed.writeSections`).
enum SnapshotEncoder {
    /// Appends `[{"id",...,"headerRow":...,"rows":[...]}, ...]` to `writer`.
    static func writeSections(_ snapshot: FeedSnapshot, to writer: inout JSONWriter) {
        writer.writeRaw("[")
        for (offset, section) in snapshot.sections.enumerated() {
            if offset > 0 { writer.writeRaw(",") }
            // The section object without its closing brace, then the rows.
            writer.writeRaw(section.bytes.dropLast())
            writer.writeRaw(",\"rows\":[")
            for (rowOffset, row) in section.rows.enumerated() {
                if rowOffset > 0 { writer.writeRaw(",") }
                writer.writeRaw(row.bytes)
            }
            writer.writeRaw("]}")
        }
        writer.writeRaw("]")
    }
}
