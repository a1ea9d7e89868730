import RowCastClient
import RowCastJSON
import RowCastWatch
import Testing

@Suite("WatchScreen")
struct WatchScreenTests {
    let now = ContinuousClock.now

    /// The screen of `replica` at `columns` × `rows`, scrolled to `top`.
    func render(
        _ replica: FeedReplica, columns: Int = 80, rows: Int = 12, top: Int = 0,
        highlights: Highlights = Highlights(), status: WatchStatus = WatchStatus()
    ) -> [String] {
        let screen = WatchScreen(columns: columns, rows: rows)
        return screen.render(
            replica, lines: FeedLines(replica), viewport: Viewport(top: top, height: screen.bodyHeight),
            highlights: highlights, status: status, now: now)
    }

    @Test("titles, section headers, one line per row, the status line and the keys, each exactly the terminal width")
    func layout() throws {
        let lines = render(try WatchFixture.small(), status: WatchStatus(rate: 2.25))
        #expect(lines.count == 12)
        for line in lines { #expect(TerminalText.width(of: WatchFixture.plain(line)) == 80, "\(line)") }
        let plain = lines.map(WatchFixture.plain)
        #expect(plain[0].hasPrefix("  ID  CELL         HEIGHT  CONTENT"))
        #expect(plain[1].hasPrefix("section main (3 rows)"))
        #expect(plain[2].hasPrefix("  a   ProductCell      44  title a"))
        #expect(plain[5].hasPrefix("section used (1 row)"))
        #expect(plain[6].hasPrefix("  d   ProductCell      44  title d"))
        #expect(plain[7].trimmingTrailingSpaces == "")
        #expect(
            plain[10]
                == TerminalText.fit(
                    " cars  seq 3  epoch e1  2 sections  4 rows  2.3 deltas/s  lines 1-6 of 6", width: 80))
        #expect(plain[11] == TerminalText.fit(WatchScreen.keyHelp, width: 80))
        #expect(lines[10].hasPrefix("\u{1B}[7m"))  // the status line in reverse video
    }

    @Test("narrow terminals drop the height column, then the cell column; tiny ones still get whole lines")
    func narrow() throws {
        let replica = try WatchFixture.small()
        let medium = render(replica, columns: 50).map(WatchFixture.plain)
        #expect(medium[0].hasPrefix("  ID  CELL         CONTENT"))
        #expect(!medium[0].contains("HEIGHT"))
        #expect(medium[2].hasPrefix("  a   ProductCell  title a"))
        let small = render(replica, columns: 30).map(WatchFixture.plain)
        #expect(small[0].hasPrefix("  ID  CONTENT"))
        #expect(small[2].hasPrefix("  a   title a"))
        for (columns, rows) in [(50, 12), (30, 12), (3, 2), (1, 1), (10, 3)] {
            let lines = render(replica, columns: columns, rows: rows)
            #expect(lines.count == rows)
            for line in lines { #expect(TerminalText.width(of: WatchFixture.plain(line)) == columns) }
        }
    }

    @Test("long ids and contents are cut to fit, never wrapped")
    func longText() throws {
        let long = String(repeating: "x", count: 300)
        let replica = try WatchFixture.replica([
            WatchFixture.section("s", [WatchFixture.row(long, "中文 " + long, cell: long)])
        ])
        let lines = render(replica, columns: 60).map(WatchFixture.plain)
        #expect(lines[2].hasPrefix("  " + String(repeating: "x", count: 14) + "…  "))
        #expect(lines[2].hasSuffix("…"))
        #expect(TerminalText.width(of: lines[2]) == 60)
    }

    @Test("changed rows are marked and coloured by kind")
    func highlighted() throws {
        let replica = try WatchFixture.small()
        var highlights = Highlights()
        highlights.record(
            try FeedDelta(
                json: WatchFixture.delta(
                    seq: 4,
                    inserted: [["id": "a", "at": WatchFixture.path(0, 0), "row": WatchFixture.row("a")]],
                    moved: [["id": "b", "from": WatchFixture.path(0, 2), "to": WatchFixture.path(0, 1)]],
                    reconfigured: [["id": "c", "at": WatchFixture.path(0, 2), "row": WatchFixture.row("c")]])), now: now
        )
        highlights.mark("d", as: .found, now: now)
        let lines = render(replica, highlights: highlights)
        #expect(lines[2].hasPrefix("\u{1B}[30;42m+ a "))
        #expect(lines[3].hasPrefix("\u{1B}[30;46m~ b "))
        #expect(lines[4].hasPrefix("\u{1B}[30;43m* c "))
        #expect(lines[6].hasPrefix("\u{1B}[7m> d "))
        #expect(lines.allSatisfy { !$0.contains("\u{1B}[") || $0.hasSuffix("\u{1B}[0m") })
        // Once their time is up they look like any other row.
        let later = WatchScreen(columns: 80, rows: 12).render(
            replica, lines: FeedLines(replica), viewport: Viewport(height: 9), highlights: highlights,
            status: WatchStatus(), now: now + .seconds(10))
        #expect(later[2].hasPrefix("  a "))
    }

    @Test("the window shows the lines from its top; the prompt or a message replaces the keys")
    func scrolledWithPrompt() throws {
        let replica = try WatchFixture.small()
        let lines = render(replica, rows: 6, top: 4, status: WatchStatus(prompt: "ab")).map(WatchFixture.plain)
        #expect(lines[1].hasPrefix("section used"))
        #expect(lines[2].hasPrefix("  d "))
        #expect(lines[4].contains("lines 5-6 of 6"))
        #expect(lines[5].hasPrefix("/ab_ "))
        let message = render(replica, rows: 6, status: WatchStatus(message: "no row with id \"z\"")).map(
            WatchFixture.plain)
        #expect(message[5].hasPrefix("no row with id \"z\""))
    }

    @Test("a feed that does not exist yet says so")
    func emptyFeed() {
        let lines = render(FeedReplica(feed: "cars")).map(WatchFixture.plain)
        #expect(lines[1].hasPrefix("  (the feed does not exist yet)"))
        #expect(lines[10].hasPrefix(" cars  seq 0  epoch none  0 sections  0 rows"))
    }

    @Test("a feed at seq 0 with an epoch exists (its items wait for a plugin): it has no sections, it is not missing")
    func existingFeedWithoutRows() throws {
        let replica = try FeedReplica(snapshot: ["feed": "cars", "seq": 0, "epoch": "af36", "sections": []])
        let lines = render(replica).map(WatchFixture.plain)
        #expect(lines[1].hasPrefix("  (no sections)"))
    }

    @Test("a feed of 100,000 rows draws its last screen from the visible rows alone")
    func largeFeed() throws {
        let rows = (0..<100_000).map { index -> JSONValue in
            ["id": .string("r\(index)"), "cell": "C", "height": 1, "content": ["title": .string("#\(index)")]]
        }
        let replica = try WatchFixture.replica([WatchFixture.section("big", rows)])
        let lines = FeedLines(replica)
        var viewport = Viewport(height: 9)
        viewport.end(lineCount: lines.count)
        let screen = WatchScreen(columns: 100, rows: 12).render(
            replica, lines: lines, viewport: viewport, highlights: Highlights(), status: WatchStatus(), now: now)
        let plain = screen.map(WatchFixture.plain)
        #expect(plain[9].hasPrefix("  r99999  C          1  #99999"))
        #expect(plain[10].contains("100000 rows"))
        #expect(plain[10].contains("lines 99993-100001 of 100001"))
    }
}

extension String {
    /// The string without trailing spaces.
    var trimmingTrailingSpaces: String {
        var copy = self
        while copy.hasSuffix(" ") { copy.removeLast() }
        return copy
    }
}
