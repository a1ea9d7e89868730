import RowCastKit

/// Where the engine gets rows from: in the daemon, the plugin registry; in tests, a fake.
/// Calls come from the engine's one thread.
public protocol RowRendering {
    /// Renders an item (its JSON as published, `ItemInput.json`) of type `type`.
    func renderItem(type: String, input: [UInt8]) -> RenderOutcome
    /// Renders the header row of a section of type `type` (input `{"id","type","order","header"}`).
    func renderHeader(type: String, input: [UInt8]) -> RenderOutcome
    /// Runs the action handler of the plugin that renders `type`.
    func select(type: String, input: [UInt8]) -> RenderOutcome
    /// Names the renderer of an item type, so a reload can tell which types changed hands
    /// (nil when no renderer handles the type).
    func rendererIdentity(forItemType type: String) -> String?
    /// Names the renderer of a section type (nil when none).
    func rendererIdentity(forHeaderType type: String) -> String?
    /// The `plugins` reply body members: `plugins`, `types`, `refusals`.
    func pluginsDescription() -> JSONObject
    /// How many plugins are loaded.
    var pluginCount: Int { get }
}
