import RowCastClient
import RowCastJSON

/// Draws the watch view: a pure function of (replica, viewport, highlights, status) to the
/// lines of a terminal of ``columns`` × ``rows``.
///
/// The screen, top to bottom: a line of column titles; the visible window of the feed's
/// lines (section headers, then one line per row: marker, id, cell, height, content); the
/// status line (feed, seq, epoch, sizes, delta rate, position); and the find prompt, a
/// message, or the keys. Every line is exactly ``columns`` columns wide once its ANSI styling
/// is left out. Only the visible window is read, so drawing costs the same for ten rows or a
/// million. Narrow terminals drop the height column first, then the cell column.
public struct WatchScreen: Sendable {
    /// The terminal width, in columns.
    public var columns: Int
    /// The terminal height, in lines.
    public var rows: Int

    /// The narrowest terminal that shows the cell column.
    public static let cellColumnMinimum = 40
    /// The narrowest terminal that shows the height column.
    public static let heightColumnMinimum = 60
    /// The keys, shown on the last line when there is nothing else to say.
    public static let keyHelp = "q quit  / find a row id  Up Down PgUp PgDn Home End scroll"

    /// A screen of `columns` × `rows` (each at least 1).
    public init(columns: Int, rows: Int) {
        self.columns = max(columns, 1)
        self.rows = max(rows, 1)
    }

    /// How many feed lines fit: everything but the title line and the two bottom lines.
    public var bodyHeight: Int { max(rows - 3, 0) }

    /// The screen's lines, at most ``rows`` of them (exactly ``rows`` once there are 3),
    /// each ``columns`` wide plus ANSI styling.
    public func render(
        _ replica: FeedReplica, lines: FeedLines, viewport: Viewport, highlights: Highlights,
        status: WatchStatus, now: ContinuousClock.Instant
    ) -> [String] {
        let visible = Viewport(top: viewport.top, height: bodyHeight).visible(lineCount: lines.count)
        let layout = RowLayout(
            columns: columns,
            rows: visible.compactMap { index in
                if case .row(let path) = lines.line(at: index) { return replica.sections[path.section].rows[path.row] }
                return nil
            })
        var screen = [styled(fit(layout.titleLine), "1")]
        for index in visible {
            switch lines.line(at: index) {
            case .header(let section):
                screen.append(styled(fit(SnapshotTable().sectionLine(replica.sections[section])), "1;34"))
            case .row(let path):
                let row = replica.sections[path.section].rows[path.row]
                let highlight = row["id"]?.stringValue.flatMap { highlights.kind(of: $0, now: now) }
                let line = fit(layout.line(for: row, marker: highlight?.marker ?? " "))
                screen.append(highlight.map { styled(line, $0.style) } ?? line)
            }
        }
        if lines.count == 0, bodyHeight > 0 {
            screen.append(fit(replica.epoch == nil ? "  (the feed does not exist yet)" : "  (no sections)"))
        }
        while screen.count < bodyHeight + 1 { screen.append(fit("")) }
        screen.append(styled(fit(statusText(replica, lines: lines, visible: visible, status: status)), "7"))
        screen.append(fit(bottomText(status)))
        return Array(screen.suffix(rows))
    }

    /// The status line: where the replica is and how fast it changes.
    func statusText(_ replica: FeedReplica, lines: FeedLines, visible: Range<Int>, status: WatchStatus) -> String {
        let sections = replica.sections.count
        var text = " \(replica.feed)  seq \(replica.seq)  epoch \(replica.epoch ?? "none")"
        text +=
            "  \(sections) section\(sections == 1 ? "" : "s")  \(replica.rowCount) row\(replica.rowCount == 1 ? "" : "s")"
        text += "  \((status.rate * 10).rounded() / 10) deltas/s"
        if status.resyncs > 0 { text += "  \(status.resyncs) resync\(status.resyncs == 1 ? "" : "s")" }
        if !visible.isEmpty { text += "  lines \(visible.lowerBound + 1)-\(visible.upperBound) of \(lines.count)" }
        return text
    }

    /// The last line: the find prompt, else the message, else the keys.
    func bottomText(_ status: WatchStatus) -> String {
        if let prompt = status.prompt { return "/" + prompt + "_" }
        return status.message ?? Self.keyHelp
    }

    /// `text` fitted to the screen width.
    func fit(_ text: String) -> String { TerminalText.fit(text, width: columns) }

    /// `text` in the SGR style `parameters`, reset after.
    func styled(_ text: String, _ parameters: String) -> String {
        "\u{1B}[\(parameters)m" + text + "\u{1B}[0m"
    }
}

/// The columns of row lines for one screen: their widths fitted to the terminal width and to
/// the visible rows' ids and cells.
struct RowLayout {
    /// The id column's width.
    let idWidth: Int
    /// The cell column's width, or `nil` when the terminal is too narrow for it.
    let cellWidth: Int?
    /// The height column's width, or `nil` when the terminal is too narrow for it.
    let heightWidth: Int?
    /// The content column's width (the rest).
    let contentWidth: Int

    /// The layout for a terminal `columns` wide showing `rows`.
    init(columns: Int, rows: [JSONValue]) {
        func widest(_ key: String) -> Int {
            rows.reduce(0) { max($0, TerminalText.width(of: Self.text($1[key]))) }
        }
        let quarter = max(columns / 4, 2)
        idWidth = min(max(widest("id"), 2), quarter)
        cellWidth = columns >= WatchScreen.cellColumnMinimum ? min(max(widest("cell"), 4), quarter) : nil
        heightWidth = columns >= WatchScreen.heightColumnMinimum ? 6 : nil
        let fixed = 2 + idWidth + 2 + (cellWidth.map { $0 + 2 } ?? 0) + (heightWidth.map { $0 + 2 } ?? 0)
        contentWidth = max(columns - fixed, 1)
    }

    /// The column titles, aligned with the rows.
    var titleLine: String {
        compose(marker: " ", id: "ID", cell: "CELL", height: "HEIGHT", content: "CONTENT")
    }

    /// The line of `row`, after `marker`.
    func line(for row: JSONValue, marker: Character) -> String {
        compose(
            marker: marker, id: Self.text(row["id"]), cell: Self.text(row["cell"]),
            height: Self.text(row["height"]), content: SnapshotTable().summary(of: row["content"]))
    }

    /// The columns side by side; the height is right-aligned.
    private func compose(marker: Character, id: String, cell: String, height: String, content: String) -> String {
        var line = String(marker) + " " + TerminalText.fit(id, width: idWidth) + "  "
        if let cellWidth { line += TerminalText.fit(cell, width: cellWidth) + "  " }
        if let heightWidth {
            let shown =
                TerminalText.width(of: height) <= heightWidth ? height : TerminalText.fit(height, width: heightWidth)
            line += String(repeating: " ", count: heightWidth - TerminalText.width(of: shown)) + shown + "  "
        }
        return line + TerminalText.fit(content, width: contentWidth)
    }

    /// A string as is, anything else as compact JSON, nothing for `nil`.
    static func text(_ value: JSONValue?) -> String { SnapshotTable().text(value) }
}
