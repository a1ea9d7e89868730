import Foundation
import RowCastClient
import RowCastJSON

/// The gateway's HTML pages: the list of feeds and the live page of one feed. Their style and
/// script are the gateway's own (``GatewayStyle``, ``GatewayScript``), served beside them.
enum GatewayPages {
    /// The frame every page shares, with `title`, the top bar's `status` and `body`.
    static func page(
        title: String, heading: String, status: String, body: String, script: String?
    ) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTMLText.escape(title))</title>
        <link rel="stylesheet" href="/assets/gateway.css">
        </head>
        <body>
        <div class="rc-top"><h1>\(heading)</h1><span id="status">\(status)</span></div>
        \(body)
        \(script.map { "<script type=\"module\" src=\"\($0)\"></script>" } ?? "")
        </body>
        </html>

        """
    }

    /// The live page of `feed`, holding `firstSections` (the first rows) as the server drew
    /// them; the stream's snapshot replaces them.
    /// A `windowed` page (a feed of more than a few thousand rows) follows a window of the
    /// feed's `total` rows as the user scrolls, through `/client.js`.
    /// `token` (the `access_token` the page was opened with) goes on in its link to the index.
    static func feed(
        _ feed: String, firstSections: [JSONValue] = [], windowed: Bool = false, total: Int = 0, token: String? = nil
    ) -> String {
        let name = HTMLText.escape(feed)
        let mode = windowed ? " data-mode=\"window\" data-total=\"\(total)\"" : ""
        return page(
            title: "\(feed) \u{2014} RowCast", heading: "<a href=\"\(link("/", token: token))\">RowCast</a> / \(name)",
            status: "connecting\u{2026}",
            body: """
                <div class="rc-layout">
                <main id="feed" data-feed="\(name)"\(mode)><div id="sections">\(RowPresentation.sectionsHTML(firstSections))</div></main>
                <aside class="rc-panel"><h2>Actions</h2><ol id="events"></ol></aside>
                </div>
                """,
            script: windowed ? "/assets/gateway-window.js" : "/assets/gateway.js")
    }

    /// `path` as an attribute value, with `?access_token=TOKEN` when `token` is given: a page
    /// opened with a token in its address links on with it (its links stay on the gateway, and
    /// `Referrer-Policy: no-referrer` keeps the address from other origins).
    static func link(_ path: String, token: String?) -> String {
        guard let token, !token.isEmpty else { return HTMLText.escape(path) }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = token.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        return HTMLText.escape(path + "?access_token=" + encoded)
    }

    /// The list of feeds of a `status` reply, each linking to its page (carrying `token`, the
    /// `access_token` the index was opened with).
    static func index(status: JSONValue, control: String, token: String? = nil) -> String {
        let feeds = status["feeds"]?.arrayValue ?? []
        let items = feeds.compactMap { feed -> String? in
            guard let name = feed["feed"]?.stringValue else { return nil }
            let rows = feed["rows"]?.numberValue.map { Int($0) } ?? 0
            let seq = feed["seq"]?.numberValue.map { Int($0) } ?? 0
            let escaped = HTMLText.escape(name)
            let path = "/feeds/" + (name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name)
            return
                "<li data-feed=\"\(escaped)\"><a href=\"\(link(path, token: token))\"><span class=\"rc-name\">\(escaped)</span>"
                + "<span class=\"rc-count\">\(TextTable.grouped(String(rows))) \(rows == 1 ? "row" : "rows")</span>"
                + "<span class=\"rc-count\">seq \(TextTable.grouped(String(seq)))</span></a></li>"
        }
        let body =
            items.isEmpty
            ? "<p class=\"rc-empty\">rowcastd at \(HTMLText.escape(control)) has no feeds yet: publish an item (rowcast publish --feed cars ...) and reload.</p>"
            : "<ol class=\"rc-feeds\">\(items.joined(separator: "\n"))</ol>"
        return page(
            title: "RowCast feeds", heading: "RowCast", status: "\(items.count) feeds at \(HTMLText.escape(control))",
            body: body, script: nil)
    }

    /// A page saying what went wrong (`error`), for the HTML routes.
    static func problem(_ error: GatewayError) -> String {
        page(
            title: "RowCast: \(error.code)", heading: "<a href=\"/\">RowCast</a>", status: HTMLText.escape(error.code),
            body: "<p class=\"rc-problem\">\(HTMLText.escape(error.message))</p>", script: nil)
    }
}
