import RowCastJSON

/// How the page draws a row's content as a cell, in one table that both the page's script
/// (``GatewayScript``) and the server's first rows (``sectionsHTML(_:)``) use: the first key
/// of each role that the content has takes the role, hints change how it looks, and whatever
/// is left is listed under it (docs/OPERATIONS.md, "The web gateway").
enum RowPresentation {
    /// The roles in the order they pick their key, each with the keys that may take it.
    static let roles: [(role: String, keys: [String])] = [
        ("title", ["title", "name", "label"]),
        ("image", ["image", "picture", "avatar", "thumbnail"]),
        ("subtitle", ["subtitle", "detail", "value", "email", "preview", "placeholder"]),
        ("badge", ["price", "badge", "count"]),
    ]
    /// Keys that say how to draw the row rather than what it shows (`style: destructive`).
    static let hints = ["style", "keyboard", "preview_lines", "accessory"]

    /// The table as the script's `roles` and `hints` variables.
    static var script: String {
        let entries = roles.map { "\($0.role): \(JSONValue.array($0.keys.map(JSONValue.string)).jsonText)" }
        return "var roles = { \(entries.joined(separator: ", ")) };\n"
            + "          var hints = \(JSONValue.array(hints.map(JSONValue.string)).jsonText);"
    }

    /// Which key of `content` takes each role.
    static func keys(of content: JSONObject) -> [String: String] {
        var chosen: [String: String] = [:]
        for (role, keys) in roles {
            if let key = keys.first(where: { content[$0] != nil && !chosen.values.contains($0) }) { chosen[role] = key }
        }
        return chosen
    }

    /// A content value as the page shows it: a string as it is, anything else as JSON.
    static func text(_ value: JSONValue) -> String {
        value.stringValue ?? value.jsonText
    }

    /// The sections of a snapshot (or a window of one) as the page's script draws them, minus
    /// what needs the script (actions, pictures, heights), so the first rows are readable
    /// before it runs; the script takes the same elements over by their ids.
    static func sectionsHTML(_ sections: [JSONValue]) -> String {
        sections.map { section in
            let id = section["id"]?.stringValue ?? ""
            let headerContent = section["headerRow"]?["content"]?.objectValue ?? JSONObject()
            let title =
                headerContent["title"].map(text) ?? section["header"]?["title"].map(text) ?? id
            let rows = (section["rows"]?.arrayValue ?? []).map(rowHTML).joined()
            return "<section class=\"rc-section\" data-section-id=\"\(HTMLText.escape(id))\">"
                + "<header class=\"rc-header\">\(field("div", "rc-title", "title", .string(title)))"
                + "<span class=\"rc-section-id\">\(HTMLText.escape(id))</span></header>"
                + "<ol class=\"rc-rows\">\(rows)</ol></section>"
        }.joined(separator: "\n")
    }

    /// One row as a list item.
    private static func rowHTML(_ row: JSONValue) -> String {
        let content = row["content"]?.objectValue ?? JSONObject()
        let keys = keys(of: content)
        var body = ""
        for role in ["title", "subtitle"] {
            if let key = keys[role], let value = content[key] { body += field("div", "rc-\(role)", key, value) }
        }
        var classes = "rc-row"
        for key in hints {
            guard let value = content[key] else { continue }
            body += field("span", "rc-hint", key, value, hidden: true)
            if key == "style" {
                classes += " rc-style-" + text(value).filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            }
        }
        let shown = Set(keys.values).union(hints)
        let extra = content.keys.filter { !shown.contains($0) }
        if !extra.isEmpty {
            body += "<dl class=\"rc-extra\">"
            for key in extra {
                body += "<dt>\(HTMLText.escape(key))</dt>" + field("dd", "rc-value", key, content[key]!)
            }
            body += "</dl>"
        }
        var html =
            "<li class=\"\(HTMLText.escape(classes))\" data-row-id=\"\(HTMLText.escape(row["id"]?.stringValue ?? ""))\""
            + " data-cell=\"\(HTMLText.escape(row["cell"]?.stringValue ?? ""))\""
            + " data-type=\"\(HTMLText.escape(row["type"]?.stringValue ?? ""))\">"
        if keys["image"] != nil {
            // The picture itself is the script's to load (the page's policy has no inline styles).
            let initial = keys["title"].flatMap { content[$0] }.map(text) ?? row["id"]?.stringValue ?? ""
            html += "<div class=\"rc-thumb\">\(HTMLText.escape(String(initial.prefix(1)).uppercased()))</div>"
        }
        html += "<div class=\"rc-body\">\(body)</div>"
        if let key = keys["badge"], let value = content[key] {
            html += field("div", key == "price" ? "rc-price" : "rc-badge", key, value)
        }
        return html + "</li>"
    }

    /// An element showing one content value, named by its key as the script names it.
    private static func field(
        _ tag: String, _ className: String, _ key: String, _ value: JSONValue, hidden: Bool = false
    ) -> String {
        let shown = HTMLText.escape(text(value))
        return
            "<\(tag) class=\"\(className)\" data-field=\"\(HTMLText.escape(key))\" data-value=\"\(shown)\"\(hidden ? " hidden" : "")>\(shown)</\(tag)>"
    }
}
