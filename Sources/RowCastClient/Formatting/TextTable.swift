/// Plain-text columns aligned with spaces, for terminals.
public struct TextTable: Sendable {
    /// The column titles.
    public var headers: [String]
    /// The rows, each with one cell per column (missing cells print empty).
    public var rows: [[String]] = []
    /// Text put before every line.
    public var indent: String

    /// A table with these column titles.
    public init(headers: [String], indent: String = "") {
        self.headers = headers
        self.indent = indent
    }

    /// Appends a row.
    public mutating func append(_ cells: [String]) { rows.append(cells) }

    /// The table as lines: headers, then rows; the last column is not padded.
    public func render() -> [String] {
        var widths = headers.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = indent
            for column in 0..<headers.count {
                let cell = column < cells.count ? cells[column] : ""
                if column == headers.count - 1 {
                    text += cell
                } else {
                    text += cell + String(repeating: " ", count: widths[column] - cell.count + 2)
                }
            }
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        return [line(headers)] + rows.map(line)
    }

    /// Shortens `text` to at most `limit` characters, ending with "…" when cut.
    public static func truncate(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(max(limit - 1, 0))) + "…"
    }
}
