import RowCastClient

/// What the keys of the watch view do: scrolling, finding a row id after `/`, quitting.
///
/// A pure state machine over the viewport, the find prompt and the message line; the loop
/// hands it each decoded key with the replica as it is now.
public struct WatchState: Sendable {
    /// What a key asks of the loop.
    public enum Outcome: Sendable, Equatable {
        /// Go on (and redraw).
        case proceed
        /// Quit the view.
        case quit
    }

    /// The visible window.
    public var viewport: Viewport
    /// The row id typed so far after `/`; `nil` when not finding.
    public private(set) var prompt: String?
    /// The message on the last line, until the next key.
    public private(set) var message: String?

    /// The state of a view whose window shows `height` lines, at the top, not finding.
    public init(height: Int) {
        viewport = Viewport(height: height)
    }

    /// Shows `text` on the last line until the next key.
    public mutating func show(_ text: String) { message = text }

    /// Handles one key; `/` + id + Enter finds the row, scrolls to it and marks it in `highlights`.
    public mutating func handle(
        _ key: Key, replica: FeedReplica, lines: FeedLines,
        highlights: inout Highlights, now: ContinuousClock.Instant
    ) -> Outcome {
        if key == .interrupt { return .quit }
        if prompt != nil {
            find(key, replica: replica, lines: lines, highlights: &highlights, now: now)
            return .proceed
        }
        message = nil
        let count = lines.count
        switch key {
        case .character("q"), .character("Q"): return .quit
        case .character("/"): prompt = ""
        case .up, .character("k"): viewport.scroll(by: -1, lineCount: count)
        case .down, .character("j"): viewport.scroll(by: 1, lineCount: count)
        case .pageUp: viewport.pageUp(lineCount: count)
        case .pageDown, .character(" "): viewport.pageDown(lineCount: count)
        case .home, .character("g"): viewport.home()
        case .end, .character("G"): viewport.end(lineCount: count)
        default: break
        }
        return .proceed
    }

    /// A key while the find prompt is open.
    private mutating func find(
        _ key: Key, replica: FeedReplica, lines: FeedLines,
        highlights: inout Highlights, now: ContinuousClock.Instant
    ) {
        guard let typed = prompt else { return }
        switch key {
        case .character(let character): prompt = typed + String(character)
        case .backspace: prompt = typed.isEmpty ? nil : String(typed.dropLast())
        case .escape: prompt = nil
        case .enter:
            prompt = nil
            guard !typed.isEmpty else { return }
            if let path = replica.indexPath(ofRow: typed) {
                viewport.reveal(lines.index(of: path), lineCount: lines.count)
                highlights.mark(typed, as: .found, now: now)
                message = "row \(typed) is row \(path.row + 1) of section \(replica.sections[path.section].id)"
            } else {
                message = "no row with id \"\(typed)\" in feed \(replica.feed)"
            }
        default: break
        }
    }
}
