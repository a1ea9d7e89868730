import Foundation
import RowCastJSON
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
        return .array(
            list.map { section in
                guard var object = section.objectValue, let rows = object["rows"]?.arrayValue else { return section }
                let normalized: [JSONValue] = rows.map { row in
                    guard var rowObject = row.objectValue, var content = row["content"]?.objectValue,
                        let date = content["date"]?.stringValue, date.wholeMatch(of: relative) != nil
                    else { return row }
                    content = JSONObject(
                        content.entries.map { $0.key == "date" ? (key: "date", value: "RELATIVE") : $0 })
                    rowObject = JSONObject(
                        rowObject.entries.map { $0.key == "content" ? (key: "content", value: .object(content)) : $0 })
                    return .object(rowObject)
                }
                object = JSONObject(
                    object.entries.map { $0.key == "rows" ? (key: "rows", value: .array(normalized)) : $0 })
                return .object(object)
            })
    }

    @Test(
        "articles: declarative cells render avatar, author, relative date, title and a two-line preview; a tap opens the article"
    )
    func articles() throws {
        let app = ExampleApp(name: "articles")
        let daemon = try DaemonProcess(plugins: [], extraArguments: ["--cells", app.cells])
        try app.publishSampleFeed(to: daemon, feed: "articles")
        let peer = try RawPeer(daemon)
        let snapshot = try peer.request(["op": "snapshot", "feed": "articles"])
        let sections = try #require(snapshot["sections"])
        #expect(try app.matchesExpectedRows(Self.normalizingRelativeDates(sections)), "\(sections)")
        #expect(
            sections.arrayValue?.first?["rows"]?.arrayValue?.first?["content"]?["date"]?.stringValue?.isEmpty == false)
        let open = try peer.request(["op": "select", "feed": "articles", "id": "a1", "action": "select"])
        #expect(open["ok"] == true, "\(open)")
        #expect(open["event"] == ["kind": "open_url", "action": "select", "url": "https://news.example/a1"], "\(open)")
    }

    @Test(
        "recipes: a C plugin renders the cookbook header and recipe rows; open publishes the recipe's URL; an unknown action is refused"
    )
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
        let bad = try peer.request([
            "op": "upsert", "feed": "recipes",
            "item": [
                "id": "r9", "type": "recipe", "data": ["title": "x", "image": "i", "url": "u", "minutes": "soon"],
            ],
        ])
        #expect(bad["error"]?["code"] == "invalid_field")
        #expect(bad["error"]?["field"] == "minutes")
    }

    @Test(
        "cars: the Swift plugins render products and advertising under a sponsored header; a tap on a product shows its detail"
    )
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

    @Test(
        "profile: attribute sections with header rows, friends, an email edited from a subscriber (checked as an email), and logout telling the producer"
    )
    func profile() throws {
        let app = ExampleApp(name: "profile")
        let daemon = try DaemonProcess(plugins: [], extraArguments: ["--cells", app.cells])
        try app.publishSampleFeed(to: daemon, feed: "profile")
        let peer = try RawPeer(daemon)
        let sections = try #require(try peer.request(["op": "snapshot", "feed": "profile"])["sections"])
        #expect(try app.matchesExpectedRows(sections), "\(sections)")

        let wrong = try peer.request([
            "op": "select", "feed": "profile", "id": "email", "action": "edit_email", "value": "not an email",
        ])
        #expect(wrong["error"]?["code"] == "invalid_value", "\(wrong)")
        let edited = try peer.request([
            "op": "select", "feed": "profile", "id": "email", "action": "edit_email", "value": "ann@new.example",
            "client": "phone",
        ])
        #expect(edited["ok"] == true, "\(edited)")
        #expect(edited["change"] == "update")
        let seq = try #require(edited["seq"]?.numberValue)
        let row = try peer.request(["op": "snapshot", "feed": "profile"])["sections"]?.arrayValue?.first?["rows"]?
            .arrayValue?.first { $0["id"] == "email" }
        #expect(row?["content"]?["value"] == "ann@new.example")

        let logout = try peer.request([
            "op": "select", "feed": "profile", "id": "logout", "action": "logout", "client": "phone",
        ])
        #expect(logout["ok"] == true, "\(logout)")
        #expect(logout["seq"]?.numberValue == seq, "a logout changes no row")
        let events = try peer.request(["op": "events", "feed": "profile", "after": 0])
        let results = events["events"]?.arrayValue?.map { $0["result"] } ?? []
        #expect(
            results == [
                ["kind": "edit", "action": "edit_email", "value": "ann@new.example"],
                ["kind": "logout", "action": "logout"],
            ], "\(events)")
        #expect(events["events"]?.arrayValue?.map { $0["requester"] } == ["phone", "phone"])
    }

    @Test(
        "items: a subscriber checks an item off, renames one, swipes one away and asks for a new one; the producer, down meanwhile, pulls the events and adds it"
    )
    func items() throws {
        let app = ExampleApp(name: "items")
        let state = try TemporaryDirectory("rowcast-state")
        var daemon = try DaemonProcess(plugins: [], stateDirectory: state, extraArguments: ["--cells", app.cells])
        try app.publishSampleFeed(to: daemon, feed: "items")
        var peer = try RawPeer(daemon)
        let sections = try #require(try peer.request(["op": "snapshot", "feed": "items"])["sections"])
        #expect(try app.matchesExpectedRows(sections), "\(sections)")

        // The subscriber's side, while the producer is down.
        #expect(
            try peer.request(["op": "select", "feed": "items", "id": "t1", "action": "check"])["change"] == "update")
        #expect(
            try peer.request([
                "op": "select", "feed": "items", "id": "t3", "action": "rename", "value": "Call the bank at 9",
            ])["change"] == "update")
        #expect(
            try peer.request(["op": "select", "feed": "items", "id": "t2", "action": "delete"])["change"] == "delete")
        let add = try peer.request([
            "op": "select", "feed": "items", "id": "composer", "action": "add", "value": "Buy milk",
        ])
        #expect(add["ok"] == true, "\(add)")
        let bad = try peer.request(["op": "select", "feed": "items", "id": "t1", "action": "rename", "value": 42])
        #expect(bad["error"]?["code"] == "invalid_value")

        // rowcastd restarts; the producer comes back and pulls what it missed.
        daemon.stop()
        daemon = try DaemonProcess(
            pluginDirectory: daemon.pluginDirectory, stateDirectory: state, extraArguments: ["--cells", app.cells])
        peer = try RawPeer(daemon)
        let events = try peer.request(["op": "events", "feed": "items", "after": 0])
        let pulled = events["events"]?.arrayValue ?? []
        #expect(pulled.map { $0["action"] } == ["check", "rename", "delete", "add"], "\(events)")
        #expect(pulled.map { $0["change"] } == ["update", "update", "delete", .null])
        let request = try #require(pulled.last { $0["action"] == "add" })
        let title = try #require(request["value"]?.stringValue)
        #expect(
            try peer.request([
                "op": "upsert", "feed": "items",
                "item": [
                    "id": "t4", "type": "todo", "section": "list", "sort": 4,
                    "data": ["title": .string(title), "done": false],
                ],
            ])["ok"] == true)

        let rows =
            try peer.request(["op": "snapshot", "feed": "items"])["sections"]?.arrayValue?.last?["rows"]?.arrayValue
            ?? []
        #expect(rows.map { $0["id"] } == ["t1", "t3", "t4"])
        #expect(rows.map { $0["content"]?["state"] } == ["done", "open", "open"])
        #expect(rows.map { $0["content"]?["title"] } == ["Buy coffee", "Call the bank at 9", "Buy milk"])
    }
}
