import Foundation
import RowCastJSON
import Testing

/// What `rowcast` prints says what happened, against a real rowcastd: a reset's duplicate ids,
/// a select's new seq, a reload's cells, a feed whose items all wait for a plugin, `subscribe
/// --count 1` waiting for a delta, and a CURVE subscription the daemon drops.
@Suite(.serialized)
struct CommandLineOutputEndToEndTests {
    /// A car item of the built-in `product` plugin.
    static func product(_ id: String, name: String) -> JSONValue {
        [
            "id": .string(id), "type": "product",
            "data": ["name": .string(name), "operatedBy": "Tesla", "price": 1, "image": "https://img/p.png"],
        ]
    }

    @Test("a reset that lists an id twice prints duplicates=N and a warning naming each id; --json lists them")
    func resetWithDuplicateIDs() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let control = ["--control", daemon.control]
        let items = [Self.product("1", name: "first"), Self.product("2", name: "two"), Self.product("1", name: "last")]
        let request: JSONValue = ["op": "reset", "feed": "cars", "items": .array(items)]
        let reset = try CommandRunner.run(["publish", "--file", "-"] + control, input: request.description)
        #expect(reset.process.terminationStatus == 0, "\(reset.stderr)")
        #expect(reset.stdout == "ok cars seq=1 duplicates=1\n", "\(reset.stdout)")
        #expect(
            reset.stderr.contains(
                #"warning: duplicate_id: reset: item id "1" appears more than once; the last one was kept"#),
            "\(reset.stderr)")

        let json = try CommandRunner.run(["publish", "--file", "-", "--json"] + control, input: request.description)
        #expect(json.process.terminationStatus == 0, "\(json.stderr)")
        let reply = try JSONParser.parse(Array(json.stdout.utf8))
        #expect(reply["duplicates"]?.arrayValue?.map { $0["id"] } == ["1"], "\(reply)")
        #expect(reply["duplicates"]?.arrayValue?.first?["code"] == "duplicate_id", "\(reply)")

        // --reset from a file says the same.
        let file = try TemporaryDirectory("rowcast-reset")
        let path = file.path + "/items.ndjson"
        try items.map(\.description).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let fromFile = try CommandRunner.run(["publish", "--feed", "cars", "--reset", "--file", path] + control)
        #expect(fromFile.process.terminationStatus == 0, "\(fromFile.stderr)")
        #expect(fromFile.stdout.hasSuffix(" duplicates=1\n"), "\(fromFile.stdout)")
        #expect(fromFile.stderr.contains(#"warning: duplicate_id: "#), "\(fromFile.stderr)")
    }

    @Test("rowcast snapshot --offset/--around with --limit shows a window and says which rows of how many")
    func snapshotWindow() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let control = ["--control", daemon.control]
        let items: [JSONValue] = (0..<30).map { index in
            var item = Self.product("c\(index)", name: "car \(index)").objectValue!
            item["sort"] = .number(Double(index))
            return .object(item)
        }
        let reset: JSONValue = ["op": "reset", "feed": "cars", "items": .array(items)]
        #expect(
            try CommandRunner.run(["publish", "--file", "-"] + control, input: reset.description).process
                .terminationStatus == 0)
        let page = try CommandRunner.run(["snapshot", "--feed", "cars", "--offset", "10", "--limit", "5"] + control)
        #expect(page.process.terminationStatus == 0, "\(page.stderr)")
        #expect(page.stdout.hasPrefix("window: rows 11-15 of 30\n"), "\(page.stdout)")
        // Spaces around the ids: the random epoch in the heading may hold "c15" as well.
        #expect(
            [" c10 ", " c14 "].allSatisfy(page.stdout.contains) && !page.stdout.contains(" c15 "), "\(page.stdout)")
        let around = try CommandRunner.run(
            ["snapshot", "--feed", "cars", "--around", "c29", "--limit", "4", "--json"] + control)
        let reply = try JSONParser.parse(Array(around.stdout.utf8))
        #expect(reply["window"]?["offset"] == 26, "\(around.stdout)")
        let bad = try CommandRunner.run(["snapshot", "--feed", "cars", "--offset", "3"] + control)
        #expect(bad.process.terminationStatus == 64)
        #expect(bad.stderr.contains("--offset and --around need --limit"), "\(bad.stderr)")
    }

    @Test("rowcast select prints the event on standard output and the feed's new seq on standard error")
    func selectSaysTheSeq() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let control = ["--control", daemon.control]
        let item: JSONValue = ["op": "upsert", "feed": "cars", "item": Self.product("42", name: "Model 3")]
        let publish = try CommandRunner.run(["publish", "--file", "-"] + control, input: item.description)
        #expect(publish.process.terminationStatus == 0, "\(publish.stderr)")
        let select = try CommandRunner.run(["select", "--feed", "cars", "--id", "42"] + control)
        #expect(select.process.terminationStatus == 0, "\(select.stderr)")
        let event = try JSONParser.parse(Array(select.stdout.utf8))
        #expect(event["kind"] == "show_detail", "\(select.stdout)")
        #expect(
            select.stderr == "rowcast: item 42 of feed cars unchanged: feed at seq 1, event 1\n", "\(select.stderr)")
    }

    @Test("rowcast snapshot of a feed whose items all wait for a plugin shows the feed and its pending items")
    func snapshotOfPendingFeed() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let control = ["--control", daemon.control]
        for id in ["a", "b", "c"] {
            let publish = try CommandRunner.run(
                ["publish", "--feed", "notes", "--type", "note", "--id", id, "--field", "title=T"] + control)
            #expect(publish.process.terminationStatus == 0, "\(publish.stderr)")
            #expect(publish.stdout.contains("warning=unknown_type"), "\(publish.stdout)")
        }
        let snapshot = try CommandRunner.run(["snapshot", "--feed", "notes"] + control)
        #expect(snapshot.process.terminationStatus == 0, "\(snapshot.stderr)")
        let lines = snapshot.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("3 pending") == true, "\(snapshot.stdout)")
        #expect(lines.dropFirst().first == "(no rows yet: every item of the feed is pending)", "\(snapshot.stdout)")
        #expect(!snapshot.stdout.contains("does not exist"), "\(snapshot.stdout)")
    }

    @Test("rowcast subscribe --count 1 prints the feed's position but stops at the next delta, not at the position")
    func subscribeCountWaitsForADelta() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let control = ["--control", daemon.control]
        let first = try CommandRunner.run(
            ["publish", "--file", "-"] + control,
            input: (["op": "upsert", "feed": "cars", "item": Self.product("1", name: "one")] as JSONValue).description)
        #expect(first.process.terminationStatus == 0, "\(first.stderr)")

        let subscriber = try CommandRunner(
            ["subscribe", "--feed", "cars", "--count", "1", "--timeout", "30", "--publish", daemon.publish])
        // The feed exists, so its position comes at once; the subscriber must still be waiting.
        let deadline = Date().addingTimeInterval(20)
        while !subscriber.stdout.contains(#""event":"position""#), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(subscriber.stdout.contains(#""event":"position""#), "\(subscriber.stdout)")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(subscriber.process.isRunning, "it stopped at the position: \(subscriber.stdout)")

        let second = try CommandRunner.run(
            ["publish", "--file", "-"] + control,
            input: (["op": "upsert", "feed": "cars", "item": Self.product("2", name: "two")] as JSONValue).description)
        #expect(second.process.terminationStatus == 0, "\(second.stderr)")
        #expect(subscriber.wait() == 0, "\(subscriber.stderr)")
        let events = subscriber.stdout.split(separator: "\n").map { try? JSONParser.parse(Array($0.utf8)) }
        // Positions (one at once, perhaps another after the first delta's heartbeat interval), then the delta.
        #expect(events.last??["event"] == "delta" && events.last??["seq"] == 2, "\(subscriber.stdout)")
        #expect(events.dropLast().allSatisfy { $0?["event"] == "position" }, "\(subscriber.stdout)")
    }

    @Test("rowcast reload after a cell file changed names the cells it loaded and the feeds it rendered again")
    func reloadNamesCells() throws {
        let cells = try TemporaryDirectory("rowcast-cells")
        let source = ExampleApp(name: "articles")
        let file = cells.path + "/articles.yaml"
        try FileManager.default.copyItem(atPath: source.cells + "/articles.yaml", toPath: file)
        let daemon = try DaemonProcess(plugins: [], extraArguments: ["--cells", cells.path])
        defer { daemon.stop() }
        try source.publishSampleFeed(to: daemon, feed: "articles")

        let unchanged = try CommandRunner.run(["reload", "--control", daemon.control])
        #expect(unchanged.process.terminationStatus == 0, "\(unchanged.stderr)")
        #expect(
            unchanged.stdout == "reloaded plugins and cells: 0 plugins and 2 cells in use\nno row changed\n",
            "\(unchanged.stdout)")

        // The README's edit: a new height for every article row.
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try text.replacingOccurrences(of: "height: 112", with: "height: 120").write(
            toFile: file, atomically: true, encoding: .utf8)
        let changed = try CommandRunner.run(["reload", "--control", daemon.control])
        #expect(changed.process.terminationStatus == 0, "\(changed.stderr)")
        let lines = changed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "reloaded plugins and cells: 0 plugins and 2 cells in use", "\(changed.stdout)")
        #expect(lines.contains("loaded cell ArticleCell from \(file):3"), "\(changed.stdout)")
        #expect(lines.contains { $0.hasPrefix("rows rendered again in: articles (now seq ") }, "\(changed.stdout)")
    }

    @Test(
        "with CURVE, rowcast subscribe to a feed the key may not read says so after the first heartbeat, and not for one it may"
    )
    func forbiddenSubscriptionIsNoted() throws {
        let work = try TemporaryDirectory("rowcast-keys")
        let keygen = try CommandRunner(["keygen", "carol", "--directory", work.path])
        #expect(keygen.wait() == 0, "\(keygen.stderr)")
        let clients = try TemporaryDirectory("rowcast-clients")
        let publicKey = try String(contentsOfFile: work.path + "/carol.pub", encoding: .utf8)
        try (publicKey + "allow = \"read,publish cars\"\n").write(
            toFile: clients.path + "/carol.key", atomically: true, encoding: .utf8)
        let daemon = try CurveEndToEndTests.daemon(clients: clients)
        defer { daemon.stop() }
        let curve = [
            "--publish", daemon.publish, "--server-key", daemon.stateDirectory.path + "/curve/server.pub", "--key",
            work.path + "/carol.key",
        ]

        let forbidden = try CommandRunner(["subscribe", "--feed", "payroll", "--until-idle", "2"] + curve)
        #expect(forbidden.wait() == 0, "\(forbidden.stderr)")
        #expect(forbidden.stdout.isEmpty, "\(forbidden.stdout)")
        #expect(
            forbidden.stderr.contains(
                "rowcast: no position of feed payroll came before the first heartbeat: either the feed does not exist yet, or the key in \(work.path)/carol.key may not read it"
            ), "\(forbidden.stderr)")

        // A feed it may read that exists: its position comes first, and nothing is noted.
        let keys = Array(curve.dropFirst(2))
        let publish = try CommandRunner.run(
            ["publish", "--feed", "cars", "--type", "product", "--id", "1", "--control", daemon.control] + keys
                + ["--field", "name=One", "--field", "operatedBy=Tesla", "--field", "price=1", "--field", "image=i"])
        #expect(publish.process.terminationStatus == 0, "\(publish.stderr)")
        let allowed = try CommandRunner(["subscribe", "--feed", "cars", "--until-idle", "2"] + curve)
        #expect(allowed.wait() == 0, "\(allowed.stderr)")
        #expect(allowed.stdout.contains(#""event":"position""#), "\(allowed.stdout)")
        #expect(!allowed.stderr.contains("no position"), "\(allowed.stderr)")
    }
}
