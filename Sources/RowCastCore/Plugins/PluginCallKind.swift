/// Which of a plugin's callbacks a call goes to.
public enum PluginCallKind: UInt8, Sendable {
    /// `render_item`: an item into a row.
    case renderItem = 1
    /// `render_header`: a section into its header row.
    case renderHeader = 2
    /// `select`: an action on a row into an event.
    case select = 3
}
