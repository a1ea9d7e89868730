import RowCastClient
import RowCastJSON

/// Rows, sections, replicas and deltas of a feed named "cars", for the watch view's tests.
enum WatchFixture {
    /// A rendered row with a title as its content.
    static func row(
        _ id: String, _ title: String? = nil, cell: String = "ProductCell", height: Double = 44
    ) -> JSONValue {
        [
            "id": .string(id), "type": "product", "cell": .string(cell), "height": .number(height),
            "content": ["title": .string(title ?? "title \(id)")], "actions": [],
        ]
    }

    /// A snapshot section with these rows.
    static func section(_ id: String, _ rows: [JSONValue]) -> JSONValue {
        ["id": .string(id), "order": nil, "type": nil, "header": nil, "headerRow": nil, "rows": .array(rows)]
    }

    /// A replica at `seq` with these sections.
    static func replica(seq: Int = 3, _ sections: [JSONValue]) throws -> FeedReplica {
        try FeedReplica(snapshot: [
            "feed": "cars", "seq": .number(Double(seq)), "epoch": "e1", "sections": .array(sections),
        ])
    }

    /// The replica of the examples: section "main" with rows a, b, c and section "used" with d.
    static func small() throws -> FeedReplica {
        try replica([section("main", [row("a"), row("b"), row("c")]), section("used", [row("d")])])
    }

    /// A delta of feed "cars" with the given row lists (every other list empty).
    static func delta(
        seq: Int, inserted: [JSONValue] = [], moved: [JSONValue] = [], reconfigured: [JSONValue] = [],
        deleted: [JSONValue] = []
    ) -> JSONValue {
        [
            "event": "delta", "feed": "cars", "epoch": "e1", "seq": .number(Double(seq)),
            "sections": ["deleted": [], "inserted": [], "moved": [], "updated": []],
            "rows": [
                "deleted": .array(deleted), "inserted": .array(inserted), "moved": .array(moved),
                "reconfigured": .array(reconfigured), "reloaded": [],
            ],
        ]
    }

    /// `[section,row]`.
    static func path(_ section: Int, _ row: Int) -> JSONValue { [.number(Double(section)), .number(Double(row))] }

    /// `text` without its ANSI escape sequences.
    static func plain(_ text: String) -> String {
        var result = ""
        var inEscape = false
        for character in text {
            if inEscape {
                if let ascii = character.asciiValue, (0x40...0x7E).contains(ascii), character != "[" {
                    inEscape = false
                }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
