import Glibc

/// The terminal the watch view takes over: raw mode (keys arrive one by one, unechoed, Ctrl-C
/// as a byte), the alternate screen, no cursor and no line wrap while full screen.
///
/// ``restore()`` puts back exactly the settings found by ``enterFullScreen()`` and the normal
/// screen; it is idempotent, and `deinit` calls it, so every way out of the view restores
/// the terminal (the loop also turns SIGINT, SIGTERM and SIGHUP into an orderly exit through
/// ``TerminalSignals``). Owns nothing but the settings; not thread-safe.
public final class Terminal {
    /// The file descriptor keys are read from.
    public let input: Int32
    /// The file descriptor the screen is written to.
    public let output: Int32
    /// The settings found on entering full screen; `nil` when not in full screen.
    private var original: termios?

    /// The terminal on `input` and `output` (standard input and output by default).
    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        self.output = output
    }

    /// Whether `descriptor` is a terminal.
    public static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// The size in columns and lines, or `nil` when the output is not a terminal.
    public func size() -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Switches to raw mode and the alternate screen, hides the cursor and turns off line wrap.
    ///
    /// - Throws: ``TerminalError`` when the input is not a terminal whose settings can be read
    ///   and changed; nothing changed then.
    public func enterFullScreen() throws(TerminalError) {
        guard original == nil else { return }
        var settings = termios()
        guard tcgetattr(input, &settings) == 0 else {
            throw TerminalError("cannot read the terminal settings", errno: errno)
        }
        var raw = settings
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else {
            throw TerminalError("cannot switch the terminal to raw mode", errno: errno)
        }
        original = settings
        write(Self.enterSequence)
    }

    /// Leaves full screen: the normal screen, the cursor, line wrap and the original
    /// settings come back. Does nothing when not in full screen.
    public func restore() {
        guard var settings = original else { return }
        original = nil
        write(Self.leaveSequence)
        _ = tcsetattr(input, TCSAFLUSH, &settings)
    }

    /// Whether the terminal is in full screen now.
    public var isFullScreen: Bool { original != nil }

    /// Writes `text` whole (retrying partial writes and interruptions; gives up on errors).
    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(output, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR || errno == EAGAIN {
                continue
            } else {
                return
            }
        }
    }

    /// The bytes waiting on the input (call it when a poll found the input readable); `nil`
    /// at end of input (the terminal went away).
    public func readAvailable() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(input, &buffer, buffer.count)
            if count > 0 { return Array(buffer[..<count]) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN { return [] }
            return nil
        }
    }

    /// Alternate screen, hidden cursor, no autowrap (a full last column must not scroll), cleared.
    static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[0m\u{1B}[2J"
    /// Default colours, autowrap and cursor back, then the normal screen.
    static let leaveSequence = "\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"

    deinit { restore() }
}

@available(*, unavailable)
extension Terminal: Sendable {}

/// The terminal could not be set up for full screen.
public struct TerminalError: Error, CustomStringConvertible {
    /// What failed and why.
    public let description: String

    /// An error saying `what` failed with `errno`.
    init(_ what: String, errno: Int32) {
        description = "\(what): \(String(cString: strerror(errno)))"
    }
}
