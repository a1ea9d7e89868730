import Logging

/// How one log event becomes one line: `message key=value ...` (metadata sorted by key,
/// values quoted when they hold spaces), prefixed with a timestamp and the level for a
/// terminal or file, or with the syslog priority `<N>` (sd-daemon(3)) for the journal, which
/// adds its own timestamp and keeps the level.
public enum LogLine {
    /// Where the line goes.
    public enum Style: Sendable, Equatable {
        /// `2025-01-31T12:00:00.123Z info rowcastd: message key=value`.
        case plain
        /// `<6>rowcastd: message key=value`.
        case journal
    }

    /// The syslog priority of a level: trace and debug 7, info 6, notice 5, warning 4, error 3,
    /// critical 2.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// The line for one event, without the final newline; line breaks in the message become
    /// spaces so that one event is one line.
    public static func format(
        style: Style, timestamp: String, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata
    ) -> String {
        var line: String
        switch style {
        case .plain: line = "\(timestamp) \(level) \(label): "
        case .journal: line = "<\(priority(level))>\(label): "
        }
        line += oneLine(message)
        for key in metadata.keys.sorted() {
            line += " \(key)=\(quotedIfNeeded(oneLine("\(metadata[key]!)")))"
        }
        return line
    }

    private static func oneLine(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return String(text.map { $0.isNewline ? " " : $0 })
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else { return value }
        return ConfigurationValue.quoted(value)
    }
}
