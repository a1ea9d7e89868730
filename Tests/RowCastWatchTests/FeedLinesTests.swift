import RowCastClient
import RowCastWatch
import Testing

@Suite("FeedLines and Viewport")
struct FeedLinesTests {
    @Test("each section is a header line followed by its rows")
    func lines() throws {
        let replica = try WatchFixture.replica([
            WatchFixture.section("main", [WatchFixture.row("a"), WatchFixture.row("b")]),
            WatchFixture.section("empty", []),
            WatchFixture.section("used", [WatchFixture.row("c")]),
        ])
        let lines = FeedLines(replica)
        #expect(lines.count == 6)
        let all = (0..<lines.count).map(lines.line(at:))
        #expect(
            all == [
                .header(section: 0), .row(RowIndexPath(section: 0, row: 0)), .row(RowIndexPath(section: 0, row: 1)),
                .header(section: 1), .header(section: 2), .row(RowIndexPath(section: 2, row: 0)),
            ])
        #expect(lines.index(of: RowIndexPath(section: 2, row: 0)) == 5)
        #expect(lines.index(ofSection: 1) == 3)
        #expect(FeedLines(FeedReplica(feed: "cars")).count == 0)
    }

    @Test("scrolling, paging, Home and End stay within the lines")
    func viewport() {
        var viewport = Viewport(height: 10)
        viewport.scroll(by: -3, lineCount: 100)
        #expect(viewport.top == 0)
        viewport.pageDown(lineCount: 100)
        #expect(viewport.top == 9)
        viewport.end(lineCount: 100)
        #expect(viewport.top == 90)
        #expect(viewport.visible(lineCount: 100) == 90..<100)
        viewport.scroll(by: 5, lineCount: 100)
        #expect(viewport.top == 90)
        viewport.pageUp(lineCount: 100)
        #expect(viewport.top == 81)
        viewport.home()
        #expect(viewport.top == 0)
        // Fewer lines than fit: the window stays at the top.
        viewport.end(lineCount: 4)
        #expect(viewport.top == 0)
        #expect(viewport.visible(lineCount: 4) == 0..<4)
    }

    @Test("the window clamps when the feed shrinks or the terminal grows, and reveal scrolls only when needed")
    func clampAndReveal() {
        var viewport = Viewport(top: 50, height: 10)
        viewport.clamp(lineCount: 30)
        #expect(viewport.top == 20)
        viewport.resize(height: 25, lineCount: 30)
        #expect(viewport.top == 5)
        viewport.reveal(10, lineCount: 30)
        #expect(viewport.top == 5)
        var far = Viewport(height: 9)
        far.reveal(500, lineCount: 1000)
        #expect(far.top == 497)
        #expect(far.visible(lineCount: 1000).contains(500))
        far.reveal(999, lineCount: 1000)
        #expect(far.top == 991)
    }
}
