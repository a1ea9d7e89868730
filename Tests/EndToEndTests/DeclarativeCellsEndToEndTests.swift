import Foundation
import RowCastJSON
import Testing

/// Declarative cells in a real rowcastd: rows from a YAML file, refused files named with their
/// line, a reload that re-renders the rows of a changed file, and bad items refused by field.
@Suite(.serialized)
struct DeclarativeCellsEndToEndTests {
    static let articles = """
        cells:
          - types: [article]
            cell: ArticleCell
            height: 112
            fields: {author: string, published: date, title: string, likes: integer?}
            content:
              author: "{{author}}"
              date: "{{date(published)}}"
              title: "{{title}}"
              likes: "{{count(likes)}}"
            actions:
              - {name: select, kind: open_url, params: {url: "https://news.example/{{item.id}}"}}
          - section_types: [topic]
            cell: TopicHeaderCell
            height: 32
            fields: {name: string}
            content: {title: "{{uppercased(name)}}"}
        """

    static func article(_ id: String, author: String? = "Ada") -> JSONValue {
        var data: JSONObject = ["published": "2026-11-22T09:00:00Z", "title": .string("Story \(id)"), "likes": 1234]
        if let author { data.append(key: "author", value: .string(author)) }
        return ["id": .string(id), "type": "article", "section": "tech", "data": .object(data)]
    }

    func cells(_ files: [String: String]) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory("rowcast-cells")
        for (name, text) in files {
            try text.write(toFile: directory.path + "/" + name, atomically: true, encoding: .utf8)
        }
        return directory
    }

    @Test("articles render from a cell file, a header from a section cell, and a refused file is named with its line")
    func rowsFromACellFile() throws {
        let directory = try cells([
            "articles.yaml": Self.articles,
            "broken.yaml": Self.articles.replacingOccurrences(of: "article]", with: "note]").replacingOccurrences(
                of: "{{title}}", with: "{{titel}}"),
        ])
        let daemon = try DaemonProcess(extraArguments: ["--cells", directory.path])
        let peer = try RawPeer(daemon)
        #expect(
            try peer.request([
                "op": "section", "feed": "news",
                "section": ["id": "tech", "type": "topic", "header": ["name": "Technology"]],
            ])["ok"] == true)
        let ok = try peer.request(["op": "upsert", "feed": "news", "item": Self.article("a1")])
        #expect(ok["ok"] == true, "\(ok)")
        let snapshot = try peer.request(["op": "snapshot", "feed": "news"])
        let section = try #require(snapshot["sections"]?.arrayValue?.first)
        #expect(
            section["headerRow"] == [
                "cell": "TopicHeaderCell", "height": 32, "content": ["title": "TECHNOLOGY"], "actions": [],
            ])
        let row = try #require(section["rows"]?.arrayValue?.first)
        #expect(row["cell"] == "ArticleCell")
        #expect(row["height"] == 112)
        #expect(row["content"] == ["author": "Ada", "date": "Nov 22, 2026", "title": "Story a1", "likes": "1.2K"])
        #expect(
            row["actions"] == [["name": "select", "kind": "open_url", "params": ["url": "https://news.example/a1"]]])

        let plugins = try peer.request(["op": "plugins"])
        #expect(plugins["cells"]?.arrayValue?.map { $0["cell"] } == ["ArticleCell", "TopicHeaderCell"])
        let refusals = plugins["cell_refusals"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(refusals.count == 1)
        #expect(
            refusals.first?.hasPrefix(
                directory.path + "/broken.yaml:9: cells[0].content.title: the template \"{{titel}}\" names \"titel\"")
                == true, "\(refusals)")
        #expect(daemon.log.contains("cell file refused"))
        let listed = try CommandRunner.run(["plugins", "--control", daemon.control])
        #expect(listed.stdout.contains("ArticleCell"), "\(listed.stdout)")
        #expect(listed.stdout.contains("refused cell file \(directory.path)/broken.yaml:9:"), "\(listed.stdout)")
    }

    @Test("an item without a required field, or with a mistyped one, is refused naming the field; nothing else changes")
    func badItems() throws {
        let directory = try cells(["articles.yaml": Self.articles])
        let daemon = try DaemonProcess(extraArguments: ["--cells", directory.path])
        let peer = try RawPeer(daemon)
        #expect(try peer.request(["op": "upsert", "feed": "news", "item": Self.article("a1")])["ok"] == true)
        let missing = try peer.request(["op": "upsert", "feed": "news", "item": Self.article("a2", author: nil)])
        #expect(missing["error"]?["code"] == "missing_field")
        #expect(missing["error"]?["field"] == "author")
        let mistyped: JSONValue = [
            "id": "a3", "type": "article", "data": ["author": "Ada", "published": "last week", "title": "t"],
        ]
        let bad = try peer.request(["op": "upsert", "feed": "news", "item": mistyped])
        #expect(bad["error"]?["code"] == "invalid_field")
        #expect(bad["error"]?["field"] == "published")
        let snapshot = try peer.request(["op": "snapshot", "feed": "news"])
        #expect(snapshot["seq"] == 1)
        #expect(snapshot["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.map { $0["id"] } == ["a1"])
        let unknown = try peer.request(["op": "select", "feed": "news", "id": "a1", "action": "share"])
        #expect(unknown["error"]?["code"] == "unknown_action", "\(unknown)")
        #expect(try peer.request(["op": "select", "feed": "news", "id": "a1", "action": "select"])["ok"] == true)
    }

    @Test("a reload after the cell file changed re-renders its rows as ordinary deltas; a restart keeps them")
    func reloadReRenders() throws {
        let directory = try cells(["articles.yaml": Self.articles])
        let state = try TemporaryDirectory("rowcast-state")
        var daemon: DaemonProcess? = try DaemonProcess(
            stateDirectory: state, extraArguments: ["--cells", directory.path])
        let peer = try RawPeer(daemon!)
        #expect(try peer.request(["op": "upsert", "feed": "news", "item": Self.article("a1")])["ok"] == true)
        try Self.articles.replacingOccurrences(of: "height: 112", with: "height: 120")
            .write(toFile: directory.path + "/articles.yaml", atomically: true, encoding: .utf8)
        let reload = try peer.request(["op": "reload"])
        #expect(reload["ok"] == true, "\(reload)")
        let snapshot = try peer.request(["op": "snapshot", "feed": "news"])
        #expect(snapshot["seq"] == 2)
        #expect(snapshot["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.first?["height"] == 120)

        daemon?.stop()
        daemon = try DaemonProcess(
            pluginDirectory: daemon!.pluginDirectory, stateDirectory: state,
            extraArguments: ["--cells", directory.path])
        let again = try RawPeer(daemon!).request(["op": "snapshot", "feed": "news"])
        #expect(again["seq"] == 2)
        #expect(again["epoch"] == snapshot["epoch"])
        #expect(again["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.first?["height"] == 120)
    }

    @Test("a cell directory that does not exist (a typo, say) is named in a warning, and rowcastd runs on")
    func missingDirectory() throws {
        let daemon = try DaemonProcess(extraArguments: ["--cells", "/nonexistent/rowcast-cells"])
        #expect(try RawPeer(daemon).request(["op": "status"])["ok"] == true)
        #expect(
            daemon.log.contains(
                "cell directory does not exist; no cells are read from it directory=/nonexistent/rowcast-cells"),
            "\(daemon.log)")
    }
}
