import Logging

#if canImport(Glibc)
import Glibc
#endif

/// rowcastd's log handler: one line per event on standard error (see `LogLine`), at the level
/// of a shared `LogLevelSwitch` so that a reload can change it.
public struct DaemonLogHandler: LogHandler {
    /// Extra metadata of this logger.
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let style: LogLine.Style
    private let levelSwitch: LogLevelSwitch
    private var levelOverride: Logger.Level?

    /// A handler for `label` writing lines of `style`, filtered by `levelSwitch`.
    public init(label: String, style: LogLine.Style, levelSwitch: LogLevelSwitch) {
        self.label = label
        self.style = style
        self.levelSwitch = levelSwitch
    }

    /// The switch's level, unless this logger was given its own.
    public var logLevel: Logger.Level {
        get { levelOverride ?? levelSwitch.level }
        set { levelOverride = newValue }
    }

    /// One metadata value.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one line (one `write(2)`) to standard error.
    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let text =
            LogLine.format(
                style: style, timestamp: style == .plain ? Self.timestamp() : "", level: event.level, label: label,
                message: "\(event.message)", metadata: merged) + "\n"
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Whether standard error is the journal's stream: `$JOURNAL_STREAM` (`DEVICE:INODE`, set
    /// by systemd) names the very file standard error is, as sd-daemon(3) describes.
    public static func isJournalStream(_ environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = Int(now.tv_nsec / 1_000_000)
        let fraction = String(milliseconds + 1000).dropFirst()
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }
}
