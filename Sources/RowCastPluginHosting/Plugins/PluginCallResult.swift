/// The outcome of calling a plugin's render or select function.
public enum PluginCallResult: Sendable, Equatable {
    /// Success: the plugin's output bytes, already checked (a row object with a string `cell`
    /// and a number `height`; an event object or `null` for a select). Pass them on as they are.
    case ok([UInt8])
    /// The plugin rejected the input (`ROWCAST_ITEM_ERROR`): report it against the item.
    case rejected(PluginCallError)
    /// The plugin failed (`ROWCAST_PLUGIN_ERROR`), returned output rowcastd cannot use, or does
    /// not implement the call: report it against the plugin.
    case failed(PluginCallError)
}
