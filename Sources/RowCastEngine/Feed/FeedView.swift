import RowCastJSON

/// A feed's published view at one moment, as a value: its visible sections in order and each
/// section's rows, bytes included. Taking one costs O(sections), since the row indexes are
/// copy-on-write and shared until the feed changes them; writing a snapshot from it costs
/// O(rows), on whatever thread writes it, while the feed goes on changing.
struct FeedView: Sendable {
    /// The visible sections, in order, with their encoded objects.
    let sections: [SectionMatcher.Summary]
    /// Each section's rows in order.
    let rowIndexes: [String: OrderedRowIndex]

    /// The sections, rows included, as the JSON arrays of snapshot parts: a new part starts
    /// before a row or section that would take the current one past `partBytes` (a part holds
    /// at least one row). A section split between parts appears in each, its rows continuing
    /// where the last part stopped.
    func sectionParts(partBytes: Int) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var writer = JSONWriter(capacity: min(partBytes, 1 << 20) + 1024)
        var sectionsInPart = 0
        var rowsInSection = 0
        writer.writeRaw("[")
        func openSection(_ section: SectionMatcher.Summary) {
            if sectionsInPart > 0 { writer.writeRaw(",") }
            writer.writeRaw(section.bytes.dropLast())
            writer.writeRaw(",\"rows\":[")
            sectionsInPart += 1
            rowsInSection = 0
        }
        func startPart() {
            writer.writeRaw("]")
            parts.append(writer.bytes)
            writer = JSONWriter(capacity: min(partBytes, 1 << 20) + 1024)
            writer.writeRaw("[")
            sectionsInPart = 0
        }
        for section in sections {
            if sectionsInPart > 0, writer.bytes.count + section.bytes.count > partBytes { startPart() }
            openSection(section)
            rowIndexes[section.id]?.forEach { entry in
                if rowsInSection > 0, writer.bytes.count + entry.row.count + 3 > partBytes {
                    writer.writeRaw("]}")
                    startPart()
                    openSection(section)
                }
                if rowsInSection > 0 { writer.writeRaw(",") }
                writer.writeRaw(entry.row)
                rowsInSection += 1
            }
            writer.writeRaw("]}")
        }
        writer.writeRaw("]")
        parts.append(writer.bytes)
        return parts
    }

    /// How many rows the view shows, over every section.
    var rowCount: Int {
        sections.reduce(0) { $0 + (rowIndexes[$1.id]?.count ?? 0) }
    }

    /// The row at `row` of section number `section` as a position over every section in order.
    func position(section: Int, row: Int) -> Int {
        sections.prefix(section).reduce(row) { $0 + (rowIndexes[$1.id]?.count ?? 0) }
    }

    /// The rows at positions `offset ..< offset + limit` over every section, as a view of
    /// their own: the sections that hold one of them, each with those rows only, and the empty
    /// sections that lie between them. O(sections + limit + blocks skipped).
    func window(offset: Int, limit: Int) -> FeedView {
        let end = offset + limit
        var kept: [SectionMatcher.Summary] = []
        var indexes: [String: OrderedRowIndex] = [:]
        var position = 0
        for section in sections {
            let index = rowIndexes[section.id]
            let count = index?.count ?? 0
            defer { position += count }
            if count == 0 {
                if position >= offset && position < end { kept.append(section) }
                continue
            }
            guard position + count > offset, position < end else { continue }
            kept.append(section)
            indexes[section.id] = OrderedRowIndex(
                sorted: index!.entries(in: max(0, offset - position)..<(end - position)))
        }
        return FeedView(sections: kept, rowIndexes: indexes)
    }
}
