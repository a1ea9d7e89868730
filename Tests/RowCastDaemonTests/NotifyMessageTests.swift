import RowCastDaemon
import Testing

/// The datagrams of sd_notify(3), as text.
struct NotifyMessageTests {
    @Test("each message is NAME=value lines; line breaks in values become spaces")
    func formatting() {
        #expect(NotifyMessage.ready.description == "READY=1")
        #expect(NotifyMessage.stopping.description == "STOPPING=1")
        #expect(NotifyMessage.watchdog.description == "WATCHDOG=1")
        #expect(
            NotifyMessage.reloading(monotonicMicroseconds: 123_456).description == "RELOADING=1\nMONOTONIC_USEC=123456")
        #expect(
            NotifyMessage.ready.adding(.mainPID(42)).adding(.status("2 feeds,\n3 rows\r")).description
                == "READY=1\nMAINPID=42\nSTATUS=2 feeds, 3 rows ")
        #expect(NotifyMessage.status("x").bytes == Array("STATUS=x".utf8))
    }
}

/// When WATCHDOG=1 is due, from systemd's environment and an injected clock.
struct WatchdogScheduleTests {
    @Test("WATCHDOG_USEC gives half the interval; WATCHDOG_PID must be this process")
    func environment() {
        #expect(WatchdogSchedule(environment: ["WATCHDOG_USEC": "30000000"], pid: 7)?.interval == .seconds(15))
        #expect(
            WatchdogSchedule(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "7"], pid: 7)?.interval
                == .seconds(15))
        #expect(WatchdogSchedule(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "8"], pid: 7) == nil)
        #expect(WatchdogSchedule(environment: ["WATCHDOG_USEC": "0"], pid: 7) == nil)
        #expect(WatchdogSchedule(environment: ["WATCHDOG_USEC": "soon"], pid: 7) == nil)
        #expect(WatchdogSchedule(environment: [:], pid: 7) == nil)
    }

    @Test("the first check is due, then one every interval")
    func schedule() {
        var schedule = WatchdogSchedule(interval: .milliseconds(100))
        let start = ContinuousClock.now
        #expect(schedule.timeUntilDue(at: start) == .zero)
        do { let due = schedule.isDue(at: start); #expect(due) }
        do { let due = schedule.isDue(at: start + .milliseconds(99)); #expect(!due) }
        #expect(schedule.timeUntilDue(at: start + .milliseconds(40)) == .milliseconds(60))
        do { let due = schedule.isDue(at: start + .milliseconds(100)); #expect(due) }
        do { let due = schedule.isDue(at: start + .milliseconds(150)); #expect(!due) }
        do { let due = schedule.isDue(at: start + .milliseconds(250)); #expect(due) }
    }
}

/// The STATUS= summary: what it says, and when it is sent.
struct StatusSummaryTests {
    @Test("the summary counts feeds, rows, items/s and plugins, and is sent only when it changed")
    func summary() {
        var summary = StatusSummary(interval: .seconds(2))
        let start = ContinuousClock.now
        do {
            let text = summary.update(at: start, feeds: 1, rows: 1, applied: 0, plugins: 1);
            #expect(text == "1 feed, 1 row, 0 items/s, 1 plugin")
        }
        #expect(!summary.isDue(at: start + .seconds(1)))
        do {
            let text = summary.update(at: start + .seconds(1), feeds: 2, rows: 9, applied: 50, plugins: 2);
            #expect(text == nil)
        }
        #expect(summary.isDue(at: start + .seconds(2)))
        do {
            let text = summary.update(at: start + .seconds(2), feeds: 2, rows: 9, applied: 50, plugins: 2);
            #expect(text == "2 feeds, 9 rows, 25 items/s, 2 plugins")
        }
        do {
            let text = summary.update(at: start + .seconds(4), feeds: 2, rows: 9, applied: 100, plugins: 2);
            #expect(text == nil)
        }
        do {
            let text = summary.update(at: start + .seconds(6), feeds: 2, rows: 9, applied: 100, plugins: 2);
            #expect(text == "2 feeds, 9 rows, 0 items/s, 2 plugins")
        }
    }
}
