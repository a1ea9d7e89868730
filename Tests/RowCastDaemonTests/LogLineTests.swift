import Logging
import RowCastDaemon
import Testing

/// One line per event, with syslog priorities for the journal, at a level a reload can change.
struct LogLineTests {
    @Test(
        "journal lines start with the syslog priority of the level",
        arguments: [
            (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
        ])
    func priorities(level: Logger.Level, priority: Int) {
        #expect(LogLine.priority(level) == priority)
        #expect(
            LogLine.format(style: .journal, timestamp: "", level: level, label: "rowcastd", message: "m", metadata: [:])
                == "<\(priority)>rowcastd: m")
    }

    @Test("plain lines carry the time and level; metadata is sorted and quoted when needed; one event is one line")
    func plain() {
        let line = LogLine.format(
            style: .plain, timestamp: "2025-01-31T12:00:00.000Z", level: .warning, label: "rowcastd",
            message: "no plugin\nfor item type",
            metadata: ["type": "truck", "feed": "cars", "item": "7", "reason": "a b=c", "empty": ""]
        )
        #expect(
            line
                == #"2025-01-31T12:00:00.000Z warning rowcastd: no plugin for item type empty="" feed=cars item=7 reason="a b=c" type=truck"#
        )
    }

    @Test("the level switch changes what every handler lets through, unless a logger set its own")
    func levelSwitch() {
        let levels = LogLevelSwitch(.info)
        var handler = DaemonLogHandler(label: "t", style: .plain, levelSwitch: levels)
        #expect(handler.logLevel == .info)
        levels.level = .debug
        #expect(handler.logLevel == .debug)
        handler.logLevel = .error
        levels.level = .trace
        #expect(handler.logLevel == .error)
    }

    @Test("JOURNAL_STREAM counts only when it names standard error")
    func journalStream() {
        #expect(!DaemonLogHandler.isJournalStream([:]))
        #expect(!DaemonLogHandler.isJournalStream(["JOURNAL_STREAM": "garbage"]))
        #expect(!DaemonLogHandler.isJournalStream(["JOURNAL_STREAM": "1:1"]))
    }
}
