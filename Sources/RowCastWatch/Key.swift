/// One key press of the watch view, decoded from the terminal's bytes by ``KeyDecoder``.
public enum Key: Sendable, Equatable {
    /// The up arrow.
    case up
    /// The down arrow.
    case down
    /// The left arrow.
    case left
    /// The right arrow.
    case right
    /// Page Up.
    case pageUp
    /// Page Down.
    case pageDown
    /// Home.
    case home
    /// End.
    case end
    /// Return or Enter.
    case enter
    /// Backspace (DEL or Ctrl-H).
    case backspace
    /// Escape on its own.
    case escape
    /// Ctrl-C, read as a byte in raw mode.
    case interrupt
    /// A printable character.
    case character(Character)
    /// An escape sequence or control byte the view does not know; ignored.
    case unknown
}
