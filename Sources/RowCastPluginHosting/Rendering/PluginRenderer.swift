import Logging
import RowCastJSON

/// The daemon's renderer: routes each item type and section type to the plugin the registry
/// holds for it, and maps plugin results to `RenderOutcome`.
///
/// Not `Sendable`: plugins are called from the engine's one thread.
public final class PluginRenderer: RowRendering {
    /// The frozen registry this renderer routes through.
    public let registry: PluginRegistry

    /// A renderer over `registry`.
    public init(registry: PluginRegistry) { self.registry = registry }

    /// Scans `directories` for plugins, reusing those of `previous` whose files are unchanged.
    public static func load(directories: [String], logger: Logger, previous: PluginRenderer? = nil) -> PluginRenderer {
        load(scan: PluginScan(directories: directories), logger: logger, previous: previous)
    }

    /// Loads the plugin files `scan` found, reusing those of `previous` whose files are unchanged.
    public static func load(scan: PluginScan, logger: Logger, previous: PluginRenderer? = nil) -> PluginRenderer {
        let loader = PluginLoader(logger: logger)
        return PluginRenderer(registry: loader.load(scan: scan, reusing: previous?.registry))
    }

    /// Renders an item with the plugin registered for its type.
    public func renderItem(type: String, input: [UInt8]) -> RenderOutcome {
        guard let plugin = registry.plugin(forItemType: type) else { return .noRenderer }
        return RenderOutcome(plugin.renderItem(input, checkingOutput: false))  // RowAssembler checks it
    }

    /// Renders a section header with the plugin registered for its type.
    public func renderHeader(type: String, input: [UInt8]) -> RenderOutcome {
        guard let plugin = registry.plugin(forHeaderType: type), plugin.rendersHeaders else { return .noRenderer }
        return RenderOutcome(plugin.renderHeader(input, checkingOutput: false))  // RowAssembler checks it
    }

    /// Runs the action handler of the plugin registered for the item type.
    public func select(type: String, input: [UInt8]) -> RenderOutcome {
        guard let plugin = registry.plugin(forItemType: type), plugin.handlesSelect else { return .noRenderer }
        return RenderOutcome(plugin.select(input))
    }

    /// Runs the action handler of the plugin registered for the item type, for its change too.
    public func act(type: String, input: [UInt8]) -> RenderOutcome {
        guard let plugin = registry.plugin(forItemType: type), plugin.handlesSelect else { return .noRenderer }
        return RenderOutcome(plugin.handleAction(input))
    }

    /// Plugin name, version, file and the file's identity: any change means re-render.
    public func rendererIdentity(forItemType type: String) -> String? {
        registry.plugin(forItemType: type)?.rendererIdentity
    }

    /// As `rendererIdentity(forItemType:)`, for section header types.
    public func rendererIdentity(forHeaderType type: String) -> String? {
        registry.plugin(forHeaderType: type)?.rendererIdentity
    }

    /// `plugins`, `types` and `refusals`, as the `plugins` reply lists them.
    public func pluginsDescription() -> JSONObject { registry.pluginsDescription() }

    /// The loaded plugins.
    public var loadedPlugins: [any RegisteredPlugin] { registry.plugins }

    /// What was refused.
    public var refusals: [PluginRefusal] { registry.refusals }

    /// How many plugins are loaded.
    public var pluginCount: Int { registry.plugins.count }
}
