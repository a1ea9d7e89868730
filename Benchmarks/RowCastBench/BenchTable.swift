/// A plain text table for the benchmark's report.
struct BenchTable {
    let title: String
    let header: [String]
    var rows: [[String]] = []
    /// Lines printed under the table.
    var footnotes: [String] = []

    init(title: String, header: [String]) {
        self.title = title
        self.header = header
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == 0 ? cell.padding(to: widths[index]) : cell.leftPadding(to: widths[index])
            }.joined(separator: "  ")
        }
        var text = "\n\(title)\n"
        text += line(header) + "\n"
        text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for row in rows { text += line(row) + "\n" }
        for note in footnotes { text += note + "\n" }
        return text
    }
}

extension String {
    func padding(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
    func leftPadding(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
