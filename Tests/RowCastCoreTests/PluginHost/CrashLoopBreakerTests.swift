import Testing

@testable import RowCastPluginHosting

/// The rules that pause a plugin whose host keeps crashing or hanging, with made-up instants.
@Suite("CrashLoopBreaker")
struct CrashLoopBreakerTests {
    private let start = ContinuousClock.now

    private func at(_ milliseconds: Int) -> ContinuousClock.Instant {
        start + .milliseconds(milliseconds)
    }

    @Test("two faults in a row restart the host at once; a third pauses it for a second")
    func thirdFaultInARowPauses() {
        var breaker = CrashLoopBreaker()
        #expect(breaker.faulted(at: at(0)) == nil)
        #expect(breaker.faulted(at: at(500)) == nil)
        #expect(breaker.remainingPause(at: at(600)) == nil)
        #expect(breaker.faulted(at: at(1900)) == .seconds(1))
        #expect(breaker.remainingPause(at: at(2000)) == .milliseconds(900))
        #expect(breaker.remainingPause(at: at(2900)) == nil)
    }

    @Test("faults with a call answered between them never pause, however close together")
    func faultsBetweenAnswersNeverPause() {
        var breaker = CrashLoopBreaker()
        for fault in 0..<20 {
            #expect(breaker.faulted(at: at(fault * 2)) == nil, "fault \(fault)")
            if fault % 2 == 1 { breaker.answered() }
        }
    }

    @Test("a fault before a call is answered after a pause pauses again at once, twice as long, up to 30 s")
    func probeFaultsDoubleThePause() {
        var breaker = CrashLoopBreaker()
        _ = breaker.faulted(at: at(0))
        _ = breaker.faulted(at: at(1))
        #expect(breaker.faulted(at: at(2)) == .seconds(1))
        var now = 2
        var expected: [Duration] = [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30)]
        while !expected.isEmpty {
            now += 40_000  // past any pause, within the calm period of the last fault
            #expect(breaker.faulted(at: at(now)) == expected.removeFirst())
        }
    }

    @Test("a call answered after a pause ends the probing: the next pause needs three faults in a row")
    func answeredCallEndsProbing() {
        var breaker = CrashLoopBreaker()
        for millisecond in 0..<3 { _ = breaker.faulted(at: at(millisecond)) }
        breaker.answered()
        #expect(breaker.faulted(at: at(1500)) == nil)
        #expect(breaker.faulted(at: at(1600)) == nil)
        #expect(breaker.faulted(at: at(1700)) == .seconds(2), "the pause still doubles within the calm period")
    }

    @Test("a minute without a fault forgets the faults before it and a pause that ended")
    func calmForgetsFaults() {
        var breaker = CrashLoopBreaker()
        #expect(breaker.faulted(at: at(0)) == nil)
        #expect(breaker.faulted(at: at(1)) == nil)
        #expect(breaker.faulted(at: at(61_000)) == nil, "two faults a minute ago are not in a row with this one")
        var paused = CrashLoopBreaker()
        for millisecond in 0..<3 { _ = paused.faulted(at: at(millisecond)) }
        #expect(paused.faulted(at: at(70_000)) == nil, "a pause an hour ago does not make one fault a loop")
    }

    @Test("a minute without a fault brings the pause back to one second")
    func calmResetsThePause() {
        var breaker = CrashLoopBreaker()
        for millisecond in 0..<3 { _ = breaker.faulted(at: at(millisecond)) }
        #expect(breaker.faulted(at: at(5000)) == .seconds(2))
        breaker.answered()
        let later = 5000 + 60_000
        #expect(breaker.faulted(at: at(later)) == nil)
        #expect(breaker.faulted(at: at(later + 1)) == nil)
        #expect(breaker.faulted(at: at(later + 2)) == .seconds(1))
    }
}
