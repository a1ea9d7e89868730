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

    @Test("the body is one JSON object with status and detail, quotes escaped")
    func body() {
        let report = HealthReport(isHealthy: false, state: "stuck", detail: "a \"quoted\"\nline")
        #expect(report.json == "{\"status\":\"stuck\",\"detail\":\"a \\\"quoted\\\"\\nline\"}\n")
    }
}
