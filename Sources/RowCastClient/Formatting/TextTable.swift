/// Plain-text columns aligned with spaces, for terminals.
public struct TextTable: Sendable {
    /// The column titles.
    public var headers: [String]
    /// The rows, each with one cell per column (missing cells print empty).
    public var rows: [[String]] = []
    /// Text put before every line.
    public var indent: String
    /// The widest a line may be (the terminal's width), or nil for no limit. Wider tables get
    /// their widest columns narrowed, cells cut with "…", down to each column's title width.
    public var width: Int?

    /// A table with these column titles, at most `width` characters wide.
    public init(headers: [String], indent: String = "", width: Int? = nil) {
        self.headers = headers
        self.indent = indent
        self.width = width
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
        if let width { widths = Self.fit(widths, headers: headers, within: width - indent.count) }
        func line(_ cells: [String]) -> String {
            var text = indent
            for column in 0..<headers.count {
                let cell = Self.truncate(column < cells.count ? cells[column] : "", to: widths[column])
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

    /// `widths` narrowed, widest column first, until the columns and their two-space gaps
    /// fit in `limit`; no column gets narrower than its title (or 4).
    static func fit(_ widths: [Int], headers: [String], within limit: Int) -> [Int] {
        var widths = widths
        let floors = widths.indices.map { min(widths[$0], max(headers[$0].count, 4)) }
        var excess = widths.reduce(0, +) + 2 * max(widths.count - 1, 0) - limit
        while excess > 0 {
            let candidates = widths.indices.filter { widths[$0] > floors[$0] }
            guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
            widths[widest] -= 1
            excess -= 1
        }
        return widths
    }

    /// `text` with thousands separators when it is a whole number ("1234567" → "1,234,567");
    /// anything else unchanged. Always a comma, whatever the locale, so output stays
    /// predictable for scripts that read it (they should use --json).
    public static func grouped(_ text: String) -> String {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard digits.count > 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return text }
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (text.hasPrefix("-") ? "-" : "") + result
    }

    /// Shortens `text` to at most `limit` characters, ending with "…" when cut.
    public static func truncate(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(max(limit - 1, 0))) + "…"
    }
}
