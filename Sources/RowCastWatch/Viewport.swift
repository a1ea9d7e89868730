/// The window of lines the watch view shows: the first visible line and how many fit.
///
/// A pure value: every move clamps the window to the lines that exist, so it can never show
/// past the end (or before the start) of the feed, whatever happened to the feed meanwhile.
public struct Viewport: Sendable, Equatable {
    /// The index of the first visible line.
    public private(set) var top: Int
    /// How many lines fit on the screen (at least 0).
    public private(set) var height: Int

    /// A window of `height` lines starting at `top`.
    public init(top: Int = 0, height: Int) {
        self.top = max(top, 0)
        self.height = max(height, 0)
    }

    /// The line indexes visible when there are `lineCount` lines.
    public func visible(lineCount: Int) -> Range<Int> {
        let start = min(top, lineCount)
        return start..<min(start + height, lineCount)
    }

    /// The largest `top` that still fills the window with `lineCount` lines.
    public func maximumTop(lineCount: Int) -> Int { max(lineCount - height, 0) }

    /// Keeps `top` within the lines that exist.
    public mutating func clamp(lineCount: Int) {
        top = min(max(top, 0), maximumTop(lineCount: lineCount))
    }

    /// A new height (the terminal was resized), clamped.
    public mutating func resize(height: Int, lineCount: Int) {
        self.height = max(height, 0)
        clamp(lineCount: lineCount)
    }

    /// Moves by `lines` (negative: up), clamped.
    public mutating func scroll(by lines: Int, lineCount: Int) {
        top += lines
        clamp(lineCount: lineCount)
    }

    /// One screen down, keeping the last visible line on screen.
    public mutating func pageDown(lineCount: Int) { scroll(by: max(height - 1, 1), lineCount: lineCount) }

    /// One screen up, keeping the first visible line on screen.
    public mutating func pageUp(lineCount: Int) { scroll(by: -max(height - 1, 1), lineCount: lineCount) }

    /// To the first line.
    public mutating func home() { top = 0 }

    /// To the last screenful.
    public mutating func end(lineCount: Int) { top = maximumTop(lineCount: lineCount) }

    /// Scrolls as little as needed to show line `index`; a line far away lands a third of the
    /// way down the window, so what surrounds it is visible too.
    public mutating func reveal(_ index: Int, lineCount: Int) {
        guard height > 0 else { return }
        if index < top || index >= top + height {
            top = index - height / 3
        }
        clamp(lineCount: lineCount)
    }
}
