import RowCastJSON

/// Renders a feed (a ``FeedReplica``) as readable text: a title line, then each section's
/// header line and its rows as a table (id, type, cell, height, content summary).
public struct SnapshotTable: Sendable {
    /// The content members shown first in the summary, in this order, when present.
    public static let preferredContentKeys = ["title", "subtitle", "price", "name", "text"]
    /// The widest content summary, in characters.
    public var summaryLimit = 72
    /// The widest a table line may be (the terminal's width), or nil for no limit.
    public var width: Int?

    /// A renderer with the default summary width, fitting tables in `width` when given.
    public init(width: Int? = nil) {
        self.width = width
    }

    /// The text lines for `replica`; `pending` (from a snapshot reply) is shown when non-zero.
    public func render(_ replica: FeedReplica, pending: Int? = nil) -> [String] {
        var title =
            "feed \(replica.feed)  seq \(TextTable.grouped(String(replica.seq)))  epoch \(replica.epoch ?? "none")"
        title +=
            "  \(replica.sections.count) section\(replica.sections.count == 1 ? "" : "s"), \(TextTable.grouped(String(replica.rowCount))) row\(replica.rowCount == 1 ? "" : "s")"
        // Items without a row: waiting for a plugin, or quarantined (their plugin crashed or
        // hung on them; `rowcast quarantine` lists those).
        if let pending, pending > 0 { title += ", \(pending) pending (no row: no plugin yet, or quarantined)" }
        var lines = [title]
        if replica.sections.isEmpty {
            // A feed that exists has an epoch, even at seq 0 (its items all pending, say).
            if replica.epoch == nil {
                lines.append("(the feed does not exist yet)")
            } else if let pending, pending > 0 {
                lines.append("(no rows yet: every item of the feed is pending)")
            } else {
                lines.append("(no sections)")
            }
        }
        for section in replica.sections {
            lines.append("")
            lines.append(sectionLine(section))
            guard !section.rows.isEmpty else {
                lines.append("  (no rows)")
                continue
            }
            var table = TextTable(headers: ["ID", "TYPE", "CELL", "HEIGHT", "CONTENT"], indent: "  ", width: width)
            for row in section.rows {
                table.append([
                    text(row["id"]), text(row["type"]), text(row["cell"]), text(row["height"]),
                    TextTable.truncate(summary(of: row["content"]), to: summaryLimit),
                ])
            }
            lines += table.render()
        }
        return lines
    }

    /// The header line of a section: "section deals (3 rows)  type=banner order=1  header: ...".
    public func sectionLine(_ section: ReplicaSection) -> String {
        let count = section.rows.count
        var line = "section \(section.id) (\(TextTable.grouped(String(count))) row\(count == 1 ? "" : "s"))"
        let attributes = section.attributes
        if let type = attributes["type"], !type.isNull { line += "  type=\(text(type))" }
        if let order = attributes["order"], !order.isNull { line += "  order=\(text(order))" }
        if let headerRow = attributes["headerRow"], !headerRow.isNull {
            line += "  header: " + TextTable.truncate(summary(of: headerRow["content"]), to: summaryLimit)
        } else if let header = attributes["header"], !header.isNull {
            line += "  header: " + TextTable.truncate(summary(of: header), to: summaryLimit)
        }
        return line
    }

    /// The preferred content members joined with " · ", or the first few members when none
    /// of them is present.
    public func summary(of content: JSONValue?) -> String {
        guard let content else { return "" }
        guard let object = content.objectValue else { return text(content) }
        var parts = Self.preferredContentKeys.compactMap { key in object[key].map { text($0) } }
        if parts.isEmpty {
            parts = object.keys.prefix(3).map { "\($0)=\(text(object[$0]))" }
        }
        return parts.filter { !$0.isEmpty }.joined(separator: " · ")
    }

    /// A string as is, anything else as compact JSON, nothing for `nil`.
    public func text(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        if let string = value.stringValue { return string.replacing("\n", with: " ") }
        return value.compactText
    }
}
