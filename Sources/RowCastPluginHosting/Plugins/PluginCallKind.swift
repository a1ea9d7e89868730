/// Which of a plugin's callbacks a call goes to.
public enum PluginCallKind: UInt8, Sendable {
    /// `render_item`: an item into a row.
    case renderItem = 1
    /// `render_header`: a section into its header row.
    case renderHeader = 2
    /// `select`: an action on a row into an event.
    case select = 3
    /// An action on a row into its event and change: `handle_action` (ABI revision 2), or
    /// `select` wrapped as `{"event": ...}` for a revision 1 plugin.
    case action = 4
}
