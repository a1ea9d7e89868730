import Foundation
import RowCastKit
import Testing

/// The apps under Examples/ as a new user runs them: the sample feed published with
/// `rowcast publish --file`, the rows compared with the app's expected-rows.json, then the
/// app's interactions.
@Suite(.serialized)
struct ExampleAppsEndToEndTests {
    /// The snapshot's sections with each row's relative date replaced by `RELATIVE`, after
    /// checking it reads as one: it changes with the time of the render.
    static func normalizingRelativeDates(_ sections: JSONValue) -> JSONValue {
        let relative = #/^(just now|\d+ min ago|\d+ h ago|yesterday|\d+ days ago|[A-Z][a-z]{2} \d{1,2}, \d{4})$/#
        guard let list = sections.arrayValue else { return sections }
        return .array(list.map { section in
            guard var object = section.objectValue, let rows = object["rows"]?.arrayValue else { return section }
            let normalized: [JSONValue] = rows.map { row in
                guard var rowObject = row.objectValue, var content = row["content"]?.objectValue,
                      let date = content["date"]?.stringValue, date.wholeMatch(of: relative) != nil else { return row }
                content = JSONObject(content.entries.map { $0.key == "date" ? (key: "date", value: "RELATIVE") : $0 })
                rowObject = JSONObject(rowObject.entries.map { $0.key == "content" ? (key: "content", value: .object(content)) : $0 })
                return .object(rowObject)
            }
            object = JSONObject(object.entries.map { $0.key == "rows" ? (key: "rows", value: .array(normalized)) : $0 })
            return .object(object)
        })
    }

    @Test("articles: declarative cells render avatar, author, relative date, title and a two-line preview; a tap opens the article")
    func articles() throws {
        let app = ExampleApp(name: "articles")
        let daemon = try DaemonProcess(plugins: [], extraArguments: ["--cells", app.cells])
        try app.publishSampleFeed(to: daemon, feed: "articles")
        let peer = try RawPeer(daemon)
        let snapshot = try peer.request(["op": "snapshot", "feed": "articles"])
        let sections = try #require(snapshot["sections"])
        #expect(try app.matchesExpectedRows(Self.normalizingRelativeDates(sections)), "\(sections)")
        #expect(sections.arrayValue?.first?["rows"]?.arrayValue?.first?["content"]?["date"]?.stringValue?.isEmpty == false)
        let open = try peer.request(["op": "select", "feed": "articles", "id": "a1", "action": "select"])
        #expect(open["ok"] == true, "\(open)")
    }

    @Test("recipes: a C plugin renders the cookbook header and recipe rows; open publishes the recipe's URL; an unknown action is refused")
    func recipes() throws {
        let app = ExampleApp(name: "recipes")
        let plugins = try app.compileCPlugin()
        let daemon = try DaemonProcess(pluginDirectory: plugins)
        try app.publishSampleFeed(to: daemon, feed: "recipes")
        let peer = try RawPeer(daemon)
        let sections = try #require(try peer.request(["op": "snapshot", "feed": "recipes"])["sections"])
        #expect(try app.matchesExpectedRows(sections), "\(sections)")
        let open = try peer.request(["op": "select", "feed": "recipes", "id": "r2", "action": "open"])
        #expect(open["event"] == ["kind": "open_url", "url": "https://recipes.example/r2"], "\(open)")
        let unknown = try peer.request(["op": "select", "feed": "recipes", "id": "r2", "action": "delete"])
        #expect(unknown["error"]?["field"] == "action", "\(unknown)")
        let bad = try peer.request(["op": "upsert", "feed": "recipes", "item": ["id": "r9", "type": "recipe", "data": ["title": "x", "image": "i", "url": "u", "minutes": "soon"]]])
        #expect(bad["error"]?["code"] == "invalid_field")
        #expect(bad["error"]?["field"] == "minutes")
    }

    @Test("cars: the Swift plugins render products and advertising under a sponsored header; a tap on a product shows its detail")
    func cars() throws {
        let app = ExampleApp(name: "cars")
        let daemon = try DaemonProcess()
        try app.publishSampleFeed(to: daemon, feed: "cars")
        let peer = try RawPeer(daemon)
        let sections = try #require(try peer.request(["op": "snapshot", "feed": "cars"])["sections"])
        #expect(try app.matchesExpectedRows(sections), "\(sections)")
        let detail = try peer.request(["op": "select", "feed": "cars", "id": "42", "action": "select"])
        #expect(detail["event"] == ["kind": "show_detail", "id": "42"], "\(detail)")
    }
}
