import RowCastDaemon
import RowCastHTTP
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What `/healthz` reports for each phase of the loop.
struct LoopHealthTests {
    @Test("starting, draining and stopped are unhealthy; running is healthy while passes finish")
    func phases() {
        let health = LoopHealth(stall: .seconds(3600))
        #expect(health.report().isHealthy == false)
        #expect(health.report().state == "starting")
        health.enter(.running)
        #expect(health.report().isHealthy)
        #expect(health.report().state == "ok")
        health.enter(.draining)
        #expect(health.report().state == "draining")
        #expect(!health.report().isHealthy)
        health.enter(.stopped)
        #expect(health.report().state == "stopped")
    }

    @Test("a loop that has not ticked for longer than the stall limit is stuck, and a tick makes it healthy again")
    func stuck() {
        let health = LoopHealth(stall: .milliseconds(100))
        health.enter(.running)
        // Wait (bounded) until the report turns: no assumption about how fast this machine is.
        var report = health.report()
        for _ in 0..<200 where report.isHealthy {
            usleep(10_000)
            report = health.report()
        }
        #expect(report.state == "stuck")
        #expect(report.detail.contains("health_stall_ms: 100"))
        health.tick()
        health.setStall(.seconds(3600))
        #expect(health.report().isHealthy)
    }

    @Test("of several loops, one that stops ticking makes the daemon stuck, named, and fails the watchdog's check")
    func severalLoops() {
        let health = LoopHealth(stall: .milliseconds(100))
        health.track(loops: 3)
        #expect(health.everyLoopPassed(since: 0))
        health.enter(.running)
        #expect(health.report().isHealthy)
        #expect(health.report().detail.contains("every one of the 3 loops"), "\(health.report().detail)")
        let checked = LoopPassClock.monotonicNanoseconds()
        // Loops 0 and 2 go on passing; loop 1 does not (bounded wait, as above).
        var report = health.report()
        for _ in 0..<200 where report.isHealthy {
            usleep(10_000)
            health.tick()
            health.clock(of: 2).tick()
            report = health.report()
        }
        #expect(report.state == "stuck")
        #expect(report.detail.hasPrefix("the loop rowcastd-loop-1 has not finished a pass"), "\(report.detail)")
        #expect(!health.everyLoopPassed(since: checked))
        health.clock(of: 1).tick()
        #expect(health.everyLoopPassed(since: checked))
        #expect(health.report().isHealthy)
    }

    @Test("a loop that has not passed yet (still loading) does not fail the watchdog's check")
    func loadingLoopNotJudged() {
        let health = LoopHealth(stall: .seconds(3600))
        health.track(loops: 2)
        let now = health.clock(of: 0).tick()
        #expect(health.everyLoopPassed(since: now))
        #expect(!health.everyLoopPassed(since: now + 1))
    }

    @Test("the body is one JSON object with status and detail, quotes escaped")
    func body() {
        let report = HealthReport(isHealthy: false, state: "stuck", detail: "a \"quoted\"\nline")
        #expect(report.json == "{\"status\":\"stuck\",\"detail\":\"a \\\"quoted\\\"\\nline\"}\n")
    }
}
