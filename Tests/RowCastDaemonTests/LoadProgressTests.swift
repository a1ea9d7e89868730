@testable import RowCastDaemon
import Testing

/// What rowcastd tells systemd while its state loads, with made-up instants.
struct LoadProgressTests {
    let start = ContinuousClock.now
    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    @Test("a report every second: the timeout extended by 30 s, where the load stands, and a watchdog ping when due")
    func reports() {
        var progress = LoadProgress()
        var pingsAsked = 0
        let first = progress.report(done: 0, total: 0, at: at(0)) {
            pingsAsked += 1
            return true
        }
        #expect(first?.description == "EXTEND_TIMEOUT_USEC=30000000\nSTATUS=loading the state\nWATCHDOG=1")
        // Within the second: nothing, and the watchdog's schedule is not asked (not spent).
        let early = progress.report(done: 10, total: 20_001, at: at(999)) {
            pingsAsked += 1
            return true
        }
        #expect(early == nil)
        let second = progress.report(done: 12, total: 20_001, at: at(1_000)) {
            pingsAsked += 1
            return false
        }
        #expect(second?.description == "EXTEND_TIMEOUT_USEC=30000000\nSTATUS=loading feed 12 of 20001")
        #expect(pingsAsked == 2)
    }
}
