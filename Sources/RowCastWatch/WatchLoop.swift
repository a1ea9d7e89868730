import Glibc
import RowCastClient
import RowCastJSON

/// The event loop of `rowcast watch`: applies every delta as it comes (the session resyncs
/// per the replica rules), reads keys and signals, and redraws the screen at most once per
/// ``frameInterval`` however fast deltas come, writing only the lines that changed.
///
/// One thread polls the subscriber, the terminal and the signal pipe together. Owns nothing
/// it is given: the caller enters and restores full screen. Not thread-safe.
public final class WatchLoop {
    /// The shortest time between two redraws (30 a second at most).
    public static let frameInterval: Duration = .milliseconds(33)
    /// The longest time between two redraws, so the delta rate falls back to 0 when idle.
    public static let idleRedraw: Duration = .milliseconds(500)

    /// The replica session followed.
    private let session: ReplicaSession
    /// The terminal drawn on.
    private let terminal: Terminal
    /// The signals that end or resize the view.
    private let signals: TerminalSignals
    /// The replica shown: the session's (an empty one while a reload fails). Never kept
    /// elsewhere, so that the session changes a large replica in place.
    private var replica: FeedReplica { session.replica ?? FeedReplica(feed: session.feed) }
    /// The screen size and renderer.
    private var screen: WatchScreen
    /// Scroll position, find prompt and message.
    private var state: WatchState
    /// Rows changed lately.
    private var highlights = Highlights()
    /// Deltas applied lately.
    private var rate = RateMeter()
    /// Bytes of keys not complete yet.
    private var decoder = KeyDecoder()
    /// When the bytes pending in `decoder` came (a lone ESC is Escape once they are old).
    private var pendingSince: ContinuousClock.Instant?
    /// How long an incomplete key waits for the rest of its bytes.
    private static let keyWait: Duration = .milliseconds(30)
    /// The lines on the terminal now (empty: everything must be drawn, after a clear).
    private var shown: [String] = []
    /// When the screen was last drawn.
    private var lastDraw: ContinuousClock.Instant?
    /// Whether something changed since the last draw.
    private var dirty = true

    /// A loop over `session` (already started), drawing on `terminal` (already in full
    /// screen), ended by `signals`.
    public init(session: ReplicaSession, terminal: Terminal, signals: TerminalSignals) {
        self.session = session
        self.terminal = terminal
        self.signals = signals
        let size = terminal.size() ?? (80, 24)
        screen = WatchScreen(columns: size.columns, rows: size.rows)
        state = WatchState(height: screen.bodyHeight)
    }

    /// Runs until `q` or Ctrl-C (returns `nil`), the end of the input (`nil`), or SIGINT,
    /// SIGTERM or SIGHUP (returns the signal number).
    ///
    /// - Throws: only when the subscriber's socket fails; a snapshot that cannot be had is
    ///   shown as a message and tried again.
    public func run() throws(RowCastClientError) -> Int32? {
        while true {
            try applyDeltas()
            let now = ContinuousClock.now
            if let expiry = highlights.nextExpiry, expiry <= now { dirty = true }
            if let lastDraw, now >= lastDraw + Self.idleRedraw { dirty = true }
            if dirty, lastDraw.map({ now >= $0 + Self.frameInterval }) ?? true { draw(now: now) }

            var timeout = Self.idleRedraw
            if dirty, let lastDraw { timeout = min(timeout, now.duration(to: lastDraw + Self.frameInterval)) }
            if let expiry = highlights.nextExpiry { timeout = min(timeout, now.duration(to: expiry)) }
            if let pendingSince { timeout = min(timeout, now.duration(to: pendingSince + Self.keyWait)) }
            let readable = try session.wait(
                timeout: max(timeout, .zero), orInputOn: [terminal.input, signals.fileDescriptor])

            if readable.contains(signals.fileDescriptor) {
                for number in signals.received() {
                    if number == SIGWINCH { resize() } else { return number }
                }
            }
            if readable.contains(terminal.input) {
                guard let bytes = terminal.readAvailable() else { return nil }
                if handle(decoder.feed(bytes)) == .quit { return nil }
                pendingSince = decoder.hasPending ? (pendingSince ?? .now) : nil
            } else if let pendingSince, ContinuousClock.now >= pendingSince + Self.keyWait {
                self.pendingSince = nil
                if handle(decoder.flush()) == .quit { return nil }
            }
        }
    }

    /// Applies the deltas waiting, until none is left or the next frame is due.
    private func applyDeltas() throws(RowCastClientError) {
        let start = ContinuousClock.now
        let end = max(lastDraw.map { $0 + Self.frameInterval } ?? start, start + .milliseconds(5))
        repeat {
            let event: ReplicaEvent?
            do {
                event = try session.next(timeout: .zero)
            } catch {
                guard error.code != "socket_error" else { throw error }
                // A reload that failed (the daemon is away) or an unreadable message: say so
                // and try again on the next turn.
                state.show("\(error.description); retrying")
                dirty = true
                return
            }
            guard let event else { return }
            apply(event)
        } while ContinuousClock.now < end
    }

    /// Takes in one event of the session.
    private func apply(_ event: ReplicaEvent) {
        let now = ContinuousClock.now
        switch event {
        case .loaded:
            highlights.removeAll()
        case .applied(_, let delta):
            rate.record(now: now)
            if let parsed = try? FeedDelta(json: delta) { highlights.record(parsed, now: now) }
        case .resynced(let loaded, let reason):
            highlights.removeAll()
            state.show("reloaded from a fresh snapshot (seq \(loaded.seq)): \(reason)")
        case .message:
            return
        }
        dirty = true
    }

    /// Handles keys; `.quit` when one of them quits.
    private func handle(_ keys: [Key]) -> WatchState.Outcome {
        guard !keys.isEmpty else { return .proceed }
        let lines = FeedLines(replica)
        for key in keys {
            if state.handle(key, replica: replica, lines: lines, highlights: &highlights, now: .now) == .quit {
                return .quit
            }
        }
        dirty = true
        return .proceed
    }

    /// Reads the new terminal size and redraws everything.
    private func resize() {
        guard let size = terminal.size() else { return }
        screen = WatchScreen(columns: size.columns, rows: size.rows)
        shown = []
        dirty = true
        lastDraw = nil
    }

    /// Draws the screen, writing only the lines that changed since the last draw.
    private func draw(now: ContinuousClock.Instant) {
        let lines = FeedLines(replica)
        state.viewport.resize(height: screen.bodyHeight, lineCount: lines.count)
        highlights.expire(now: now)
        let status = WatchStatus(
            rate: rate.perSecond(now: now), resyncs: session.resyncCount,
            prompt: state.prompt, message: state.message)
        let frame = screen.render(
            replica, lines: lines, viewport: state.viewport, highlights: highlights, status: status, now: now)
        var output = shown.isEmpty ? "\u{1B}[0m\u{1B}[2J" : ""
        for (index, line) in frame.enumerated() where index >= shown.count || shown[index] != line {
            output += "\u{1B}[\(index + 1);1H" + line
        }
        if !output.isEmpty { terminal.write(output) }
        shown = frame
        lastDraw = now
        dirty = false
    }
}

@available(*, unavailable)
extension WatchLoop: Sendable {}
