import RowCastClient
import RowCastJSON
import RowCastWatch

/// Issue 18's watch view on a feed of a million rows: what applying one delta costs the
/// client's replica (as `ReplicaSession` applies it, and with another copy of it alive),
/// what one redraw costs (`FeedLines` and `WatchScreen.render` of a 100 × 50 terminal, at
/// the top, middle and end of the feed), and `/` finding the last row. One section of a
/// million rows, then a thousand sections of a thousand rows.
struct WatchBenchmark {
    /// The feed layouts measured: (sections, rows per section).
    static let layouts = [(1, 1_000_000), (1_000, 1_000)]

    var results = JSONObject()

    mutating func run() throws -> String {
        var table = BenchTable(
            title: "Watch: a replica of 1,000,000 rows (median of runs)",
            header: ["layout", "operation", "time", "per second"])
        var figures: [JSONValue] = []
        for (sectionCount, rowsPerSection) in Self.layouts {
            let layout = "\(sectionCount.formatted) × \(rowsPerSection.formatted)"
            var replica = FeedReplica(feed: "bench")
            let loadSeconds = try BenchClock.seconds {
                replica = try Self.replica(sections: sectionCount, rows: rowsPerSection)
            }
            func add(_ operation: String, _ seconds: Double) {
                table.add([layout, operation, formatDuration(seconds), format3(1 / seconds)])
                figures.append([
                    "layout": .string(layout), "operation": .string(operation), "seconds": .number(seconds),
                ])
            }
            add("load the snapshot", loadSeconds)

            // One delta of each kind in the middle of the last section, as a session applies
            // it (holding the replica once), then with a copy of the replica kept elsewhere
            // (what a caller keeping each event's replica costs the next delta).
            var highlights = Highlights()
            let section = sectionCount - 1
            let middle = rowsPerSection / 2
            let cases =
                ["reconfigure", "insert", "delete", "move"].map { ($0, false) } + [
                    ("reconfigure", true), ("insert", true),
                ]
            for (kind, copyKept) in cases {
                var deltas: [JSONValue] = []
                var kept: FeedReplica?
                let seconds = try BenchClock.median(
                    runs: 21,
                    setup: {
                        deltas = [
                            Self.delta(kind, seq: replica.seq + 1, section: section, row: middle, replica: replica)
                        ]
                        kept = copyKept ? replica : nil
                    },
                    {
                        var updated = replica
                        replica = FeedReplica(feed: "bench")  // the session lets go of it while applying
                        try updated.apply(delta: deltas[0])
                        highlights.record(try FeedDelta(json: deltas[0]), now: .now)
                        replica = updated
                    })
                precondition(kept.map { $0.seq + 1 == replica.seq } ?? true)
                add("apply one \(kind) delta" + (copyKept ? " (copy kept)" : ""), seconds)
            }

            let screen = WatchScreen(columns: 100, rows: 50)
            for (place, fraction) in [("top", 0.0), ("middle", 0.5), ("end", 1.0)] {
                var lines: [String] = []
                let seconds = BenchClock.median(runs: 101) {
                    let feedLines = FeedLines(replica)
                    var viewport = Viewport(top: Int(Double(feedLines.count) * fraction), height: screen.bodyHeight)
                    viewport.clamp(lineCount: feedLines.count)
                    lines = screen.render(
                        replica, lines: feedLines, viewport: viewport, highlights: highlights,
                        status: WatchStatus(), now: .now)
                }
                precondition(lines.count == 50)
                add("redraw 100 × 50 at the \(place)", seconds)
            }

            let lastID = replica.sections[section].rows.last?["id"]?.stringValue ?? ""
            let findSeconds = BenchClock.median(runs: 5) { precondition(replica.indexPath(ofRow: lastID) != nil) }
            add("find the last row (/)", findSeconds)
        }
        results["operations"] = .array(figures)
        table.footnotes = [
            "apply: FeedReplica.apply(delta:) as ReplicaSession applies it, plus the highlight record; (copy kept): another",
            "copy of the replica is alive meanwhile, so the rows changed are copied first;",
            "redraw: FeedLines and WatchScreen.render of the visible window, without writing to a terminal.",
        ]
        return table.render()
    }

    /// A replica of `sections` sections of `rows` product-like rows each.
    static func replica(sections: Int, rows: Int) throws -> FeedReplica {
        var sectionValues: [JSONValue] = []
        sectionValues.reserveCapacity(sections)
        for sectionIndex in 0..<sections {
            var rowValues: [JSONValue] = []
            rowValues.reserveCapacity(rows)
            for rowIndex in 0..<rows {
                rowValues.append(row("s\(sectionIndex)-r\(rowIndex)", title: "Car \(rowIndex)"))
            }
            sectionValues.append([
                "id": .string("s\(sectionIndex)"), "order": nil, "type": nil, "header": nil,
                "headerRow": nil, "rows": .array(rowValues),
            ])
        }
        return try FeedReplica(snapshot: ["feed": "bench", "seq": 1, "epoch": "e", "sections": .array(sectionValues)])
    }

    /// A rendered row as the product plugin makes them.
    static func row(_ id: String, title: String) -> JSONValue {
        [
            "id": .string(id), "type": "product", "cell": "ProductImageCell", "height": 120,
            "content": [
                "title": .string(title), "subtitle": "Operated by Tesla", "price": "$39,999",
                "image": "https://img/1.png",
            ],
            "actions": [],
        ]
    }

    /// One delta of `kind` at row `row` of section `section`, the next after `replica`.
    static func delta(_ kind: String, seq: Int, section: Int, row: Int, replica: FeedReplica) -> JSONValue {
        let id = replica.sections[section].rows[row]["id"]?.stringValue ?? ""
        func path(_ index: Int) -> JSONValue { [.number(Double(section)), .number(Double(index))] }
        var rows: JSONObject = ["deleted": [], "inserted": [], "moved": [], "reconfigured": [], "reloaded": []]
        switch kind {
        case "reconfigure":
            rows["reconfigured"] = [["id": .string(id), "at": path(row), "row": Self.row(id, title: "Changed \(seq)")]]
        case "insert":
            let newID = "new-\(seq)"
            rows["inserted"] = [["id": .string(newID), "at": path(row), "row": Self.row(newID, title: "New")]]
        case "delete": rows["deleted"] = [["id": .string(id), "at": path(row)]]
        default: rows["moved"] = [["id": .string(id), "from": path(row), "to": path(0)]]
        }
        return [
            "event": "delta", "feed": "bench", "epoch": "e", "seq": .number(Double(seq)),
            "sections": ["deleted": [], "inserted": [], "moved": [], "updated": []], "rows": .object(rows),
        ]
    }
}
