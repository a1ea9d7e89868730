import Foundation
@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The commit pacing's timer descriptor: readable once expired, until cleared; arming it again
/// for the same instant and clearing it before it can have expired cost no system call, and
/// must not lose an expiry.
struct OneShotTimerTests {
    static func readable(_ timer: OneShotTimer, within milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: timer.descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) == 1
    }

    @Test("a clear before the expiry leaves the timer armed; a clear after it makes the descriptor unreadable")
    func clearBeforeAndAfterExpiry() {
        let timer = OneShotTimer()
        #expect(timer.descriptor >= 0)
        #expect(!Self.readable(timer, within: 0), "a new timer is disarmed")
        let due = ContinuousClock.now + .milliseconds(30)
        timer.arm(at: due)
        timer.clear()  // before the instant: nothing to read, still armed
        #expect(!Self.readable(timer, within: 0))
        #expect(Self.readable(timer, within: 10_000), "it still fires")
        #expect(Self.readable(timer, within: 0), "and stays readable until cleared")
        timer.clear()
        #expect(!Self.readable(timer, within: 0))
    }

    @Test("armed again for the same instant it fires once; after its expiry was taken, the same instant arms it again")
    func sameInstant() {
        let timer = OneShotTimer()
        let due = ContinuousClock.now + .milliseconds(20)
        timer.arm(at: due)
        timer.arm(at: due)
        #expect(Self.readable(timer, within: 10_000))
        timer.clear()
        #expect(!Self.readable(timer, within: 0))
        timer.arm(at: due)  // past now: fires at once
        #expect(Self.readable(timer, within: 10_000), "the taken expiry does not make a later arm a no-op")
        timer.clear()
        #expect(!Self.readable(timer, within: 0))
    }

    @Test("arming it for another instant replaces the expiry it had")
    func rearmLater() {
        let timer = OneShotTimer()
        timer.arm(at: ContinuousClock.now + .milliseconds(10))
        timer.arm(at: ContinuousClock.now + .seconds(60))
        #expect(!Self.readable(timer, within: 100), "the earlier expiry is gone")
        timer.arm(at: ContinuousClock.now)
        #expect(Self.readable(timer, within: 10_000))
        timer.clear()
        #expect(!Self.readable(timer, within: 0))
    }
}
