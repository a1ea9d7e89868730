import RowCastClient
import RowCastWatch
import Testing

@Suite("WatchState")
struct WatchStateTests {
    let now = ContinuousClock.now

    /// Handles `keys` in order; the outcome of the last one.
    @discardableResult
    func press(
        _ keys: [Key], _ state: inout WatchState, _ replica: FeedReplica, _ highlights: inout Highlights
    ) -> WatchState.Outcome {
        var outcome = WatchState.Outcome.proceed
        for key in keys {
            outcome = state.handle(key, replica: replica, lines: FeedLines(replica), highlights: &highlights, now: now)
        }
        return outcome
    }

    @Test("q and Ctrl-C quit; arrows, pages, Home and End scroll")
    func keys() throws {
        let replica = try WatchFixture.replica([WatchFixture.section("s", (0..<50).map { WatchFixture.row("r\($0)") })])
        var state = WatchState(height: 10)
        var highlights = Highlights()
        #expect(press([.down, .down, .up], &state, replica, &highlights) == .proceed)
        #expect(state.viewport.top == 1)
        press([.pageDown], &state, replica, &highlights)
        #expect(state.viewport.top == 10)
        press([.end], &state, replica, &highlights)
        #expect(state.viewport.top == 41)
        press([.home], &state, replica, &highlights)
        #expect(state.viewport.top == 0)
        #expect(press([.character("q")], &state, replica, &highlights) == .quit)
        #expect(press([.interrupt], &state, replica, &highlights) == .quit)
    }

    @Test("/ id Enter scrolls to the row, marks it found and says where it is")
    func find() throws {
        let replica = try WatchFixture.replica([WatchFixture.section("s", (0..<50).map { WatchFixture.row("r\($0)") })])
        var state = WatchState(height: 10)
        var highlights = Highlights()
        press(
            [.character("/"), .character("r"), .character("4"), .character("x"), .backspace, .character("2")], &state,
            replica, &highlights)
        #expect(state.prompt == "r42")
        #expect(press([.character("q")], &state, replica, &highlights) == .proceed)  // q is text while finding
        press([.backspace, .enter], &state, replica, &highlights)
        #expect(state.prompt == nil)
        #expect(state.viewport.visible(lineCount: 51).contains(43))  // the header line, then r0 ... r42
        #expect(highlights.kind(of: "r42", now: now) == .found)
        #expect(state.message == "row r42 is row 43 of section s")
        press([.down], &state, replica, &highlights)
        #expect(state.message == nil)
    }

    @Test("an unknown id says so; Escape and a Backspace past the start close the prompt")
    func findMissing() throws {
        let replica = try WatchFixture.small()
        var state = WatchState(height: 10)
        var highlights = Highlights()
        press([.character("/"), .character("z"), .enter], &state, replica, &highlights)
        #expect(state.message == "no row with id \"z\" in feed cars")
        press([.character("/"), .character("a"), .escape], &state, replica, &highlights)
        #expect(state.prompt == nil)
        #expect(highlights.count == 0)
        press([.character("/"), .backspace], &state, replica, &highlights)
        #expect(state.prompt == nil)
        press([.character("/"), .enter], &state, replica, &highlights)
        #expect(state.prompt == nil)
    }
}
