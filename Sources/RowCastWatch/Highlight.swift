/// Why a row is highlighted for a moment in the watch view; each kind looks different.
public enum Highlight: Sendable, Equatable, CaseIterable {
    /// The row was just inserted (its own or its section's insertion).
    case inserted
    /// The row's content just changed (reconfigured, or reloaded with another cell).
    case reconfigured
    /// The row just moved.
    case moved
    /// The row is the one `/` just found.
    case found

    /// The one-column marker drawn before the row, so the kinds differ without colour too.
    public var marker: Character {
        switch self {
        case .inserted: "+"
        case .reconfigured: "*"
        case .moved: "~"
        case .found: ">"
        }
    }

    /// The SGR parameters of the row's colours.
    var style: String {
        switch self {
        case .inserted: "30;42"  // black on green
        case .reconfigured: "30;43"  // black on yellow
        case .moved: "30;46"  // black on cyan
        case .found: "7"  // reverse video
        }
    }
}
