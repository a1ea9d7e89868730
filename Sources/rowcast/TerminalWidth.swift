import Foundation

/// How wide the tables may be: `COLUMNS` when set, else the width of the terminal on standard
/// output, else no limit (output to a pipe or file is never cut).
enum TerminalWidth {
    /// The width in columns, or nil for no limit.
    static var columns: Int? {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 0 {
            return columns
        }
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
