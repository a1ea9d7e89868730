import RowCastClient
import RowCastWatch
import Testing

@Suite("Highlights and RateMeter")
struct HighlightsTests {
    let start = ContinuousClock.now

    @Test("a delta's inserted, reconfigured and moved rows are highlighted by kind until their time is up")
    func recordAndExpire() throws {
        let delta = try FeedDelta(
            json: WatchFixture.delta(
                seq: 4,
                inserted: [["id": "n", "at": WatchFixture.path(0, 0), "row": WatchFixture.row("n")]],
                moved: [
                    ["id": "b", "from": WatchFixture.path(0, 1), "to": WatchFixture.path(0, 3)],
                    ["id": "c", "from": WatchFixture.path(0, 2), "to": WatchFixture.path(0, 1)],
                ],
                reconfigured: [["id": "c", "at": WatchFixture.path(0, 1), "row": WatchFixture.row("c", "new")]]))
        var highlights = Highlights(duration: .seconds(1))
        highlights.record(delta, now: start)
        #expect(highlights.kind(of: "n", now: start) == .inserted)
        #expect(highlights.kind(of: "b", now: start) == .moved)
        #expect(highlights.kind(of: "c", now: start) == .reconfigured)  // moved and changed: changed wins
        #expect(highlights.kind(of: "a", now: start) == nil)
        #expect(highlights.nextExpiry == start + .seconds(1))

        let later = start + .milliseconds(1001)
        #expect(highlights.kind(of: "n", now: later) == nil)
        highlights.expire(now: later)
        #expect(highlights.count == 0)
        #expect(highlights.nextExpiry == nil)
    }

    @Test("a row changed again keeps its latest highlight for the full time")
    func renewed() throws {
        var highlights = Highlights(duration: .seconds(1))
        let first = try FeedDelta(
            json: WatchFixture.delta(
                seq: 4, inserted: [["id": "n", "at": WatchFixture.path(0, 0), "row": WatchFixture.row("n")]]))
        let second = try FeedDelta(
            json: WatchFixture.delta(
                seq: 5, reconfigured: [["id": "n", "at": WatchFixture.path(0, 0), "row": WatchFixture.row("n", "x")]]))
        highlights.record(first, now: start)
        highlights.record(second, now: start + .milliseconds(800))
        highlights.expire(now: start + .milliseconds(1200))
        #expect(highlights.kind(of: "n", now: start + .milliseconds(1200)) == .reconfigured)
        #expect(highlights.nextExpiry == start + .milliseconds(1800))
    }

    @Test("found rows last twice as long, and the limit bounds how many rows are held")
    func foundAndLimit() throws {
        var highlights = Highlights(duration: .seconds(1), limit: 2)
        highlights.mark("a", as: .found, now: start)
        #expect(highlights.kind(of: "a", now: start + .milliseconds(1500)) == .found)
        let delta = try FeedDelta(
            json: WatchFixture.delta(
                seq: 4,
                inserted: [
                    ["id": "x", "at": WatchFixture.path(0, 0), "row": WatchFixture.row("x")],
                    ["id": "y", "at": WatchFixture.path(0, 1), "row": WatchFixture.row("y")],
                ]))
        highlights.record(delta, now: start)
        #expect(highlights.count == 2)
        // Batches expire in order of their end, whatever order they were recorded in.
        #expect(highlights.nextExpiry == start + .seconds(1))
        highlights.removeAll()
        #expect(highlights.count == 0)
    }

    @Test("the rate is the events of the last window per second, and falls to 0 when they stop")
    func rate() {
        var meter = RateMeter(bucket: .milliseconds(250), bucketCount: 4)
        for step in 0..<10 { meter.record(now: start + .milliseconds(100 * step)) }
        #expect(meter.perSecond(now: start + .milliseconds(950)) == 10)
        #expect(meter.perSecond(now: start + .seconds(5)) == 0)
    }
}
