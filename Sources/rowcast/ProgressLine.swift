import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The progress line `rowcast publish` keeps as the last line of a terminal: requests sent and
/// answered, the rate, and the time left when the total is known ("sent 120,000 of 200,000,
/// answered 119,500 · 10,234/s · 8 s left"). It is drawn on standard error only when that is a
/// terminal (and `TERM` is not `dumb`); every other line is printed above it (`print`), and
/// `finish` erases it. It shows from half a second on (a short run shows nothing), and its
/// text changes at most five times a second.
final class ProgressLine {
    private let total: Int?
    private let started = ContinuousClock.now
    private var lastUpdate: ContinuousClock.Instant?
    private var text = ""
    private var shown = false
    private var sentCount = 0
    private var answeredCount = 0

    private init(total: Int?) {
        self.total = total
    }

    /// A progress line on standard error, or nil when it is not a terminal.
    static func onTerminal(total: Int?) -> ProgressLine? {
        guard isatty(STDERR_FILENO) == 1, ProcessInfo.processInfo.environment["TERM"] != "dumb" else { return nil }
        return ProgressLine(total: total)
    }

    /// Counts a request sent.
    func sent() {
        sentCount += 1
        redraw()
    }

    /// Counts a request answered (or failed).
    func answered() {
        answeredCount += 1
        redraw()
    }

    /// Runs `output` (which prints lines) with the progress line out of the way, then draws it
    /// again below them.
    func print(_ output: () -> Void) {
        erase()
        output()
        redraw(force: true)
    }

    /// Erases the line, for good.
    func finish() {
        erase()
    }

    private func erase() {
        guard shown else { return }
        write("\r\u{1B}[K")
        shown = false
    }

    private func redraw(force: Bool = false) {
        let now = ContinuousClock.now
        guard now - started >= .milliseconds(500) else { return }
        if let lastUpdate, now - lastUpdate < .milliseconds(200) {
            guard force else { return }
        } else {
            lastUpdate = now
            text = describe(elapsed: now - started)
        }
        write("\r\u{1B}[K" + text)
        shown = true
    }

    /// "sent N[ of T], answered M · R/s[ · S s left]".
    private func describe(elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        var parts = ["sent \(sentCount.grouped())" + (total.map { " of \($0.grouped())" } ?? "")]
        parts[0] += ", answered \(answeredCount.grouped())"
        guard seconds > 0.2 else { return parts[0] }
        let rate = Double(answeredCount) / seconds
        parts.append("\(Int(rate).grouped())/s")
        if let total, rate > 0 {
            parts.append("\(Int((Double(total - answeredCount) / rate).rounded(.up))) s left")
        }
        return parts.joined(separator: " · ")
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

extension Int {
    /// The number with thousands separators: 120,000.
    fileprivate func grouped() -> String {
        let digits = String(self)
        var grouped = ""
        for (index, digit) in digits.reversed().enumerated() {
            if index > 0, index % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return String(grouped.reversed())
    }
}
