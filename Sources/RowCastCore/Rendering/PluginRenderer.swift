import Logging
import RowCastKit

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
        let loader = PluginLoader(logger: logger)
        return PluginRenderer(registry: loader.load(directories: directories, reusing: previous?.registry))
    }

    /// Renders an item with the plugin registered for its type.
    public func renderItem(type: String, input: [UInt8]) -> RenderOutcome {
        guard let plugin = registry.plugin(forItemType: type) else { return .noRenderer }
        return Self.outcome(plugin.renderItem(input, checkingOutput: false))  // RowAssembler checks it
    }

    /// Renders a section header with the plugin registered for its type.
    public func renderHeader(type: String, input: [UInt8]) -> RenderOutcome {
        guard let plugin = registry.plugin(forHeaderType: type), plugin.rendersHeaders else { return .noRenderer }
        return Self.outcome(plugin.renderHeader(input, checkingOutput: false))  // RowAssembler checks it
    }

    /// Runs the action handler of the plugin registered for the item type.
    public func select(type: String, input: [UInt8]) -> RenderOutcome {
        guard let plugin = registry.plugin(forItemType: type), plugin.handlesSelect else { return .noRenderer }
        return Self.outcome(plugin.select(input))
    }

    /// Plugin name, version, file and the file's identity: any change means re-render.
    public func rendererIdentity(forItemType type: String) -> String? {
        registry.plugin(forItemType: type).map(Self.identity)
    }

    /// As `rendererIdentity(forItemType:)`, for section header types.
    public func rendererIdentity(forHeaderType type: String) -> String? {
        registry.plugin(forHeaderType: type).map(Self.identity)
    }

    /// `plugins`, `types` and `refusals`, as the `plugins` reply lists them.
    public func pluginsDescription() -> JSONObject {
        let plugins: [JSONValue] = registry.plugins.map { plugin in
            [
                "name": .string(plugin.name), "version": .string(plugin.version), "file": .string(plugin.file),
                "itemTypes": .array(plugin.itemTypes.map(JSONValue.string)),
                "headerTypes": .array(plugin.headerTypes.map(JSONValue.string)),
            ]
        }
        var types = JSONObject()
        for plugin in registry.plugins {
            for type in plugin.itemTypes where registry.plugin(forItemType: type) === plugin {
                types.append(key: type, value: ["plugin": .string(plugin.name), "version": .string(plugin.version), "file": .string(plugin.file)])
            }
        }
        let refusals: [JSONValue] = registry.refusals.map { ["file": .string($0.file), "reason": .string($0.reason)] }
        return ["plugins": .array(plugins), "types": .object(types), "refusals": .array(refusals)]
    }

    /// How many plugins are loaded.
    public var pluginCount: Int { registry.plugins.count }

    private static func identity(_ plugin: LoadedPlugin) -> String {
        let file = plugin.fileIdentity
        return "\(plugin.name)@\(plugin.version)@\(plugin.file)@\(file.device):\(file.inode):\(file.size):\(file.modifiedSeconds).\(file.modifiedNanoseconds)"
    }

    private static func outcome(_ result: PluginCallResult) -> RenderOutcome {
        switch result {
        case .ok(let bytes): return .ok(bytes)
        case .rejected(let error): return .rejected(message: error.message, field: error.field, code: error.code)
        case .failed(let error): return .failed(message: error.message)
        }
    }
}
