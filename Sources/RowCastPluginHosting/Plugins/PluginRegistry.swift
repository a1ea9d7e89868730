/// The registry of plugins loaded into rowcastd itself (`plugin_isolation: in_process`).
public typealias PluginRegistry = PluginTable<LoadedPlugin>

/// The frozen routing table of loaded plugins: item type → plugin, section type → plugin, plus
/// what was refused and why.
///
/// Made by ``PluginTable/Builder`` (or ``PluginLoader/load(directories:reusing:)``) and never
/// changed afterwards; a reload builds a new registry and swaps it in. Not `Sendable`, because
/// the plugins it holds belong to the rendering thread.
public struct PluginTable<Plugin: RegisteredPlugin> {
    /// The loaded plugins, in load order (directory order, then file name).
    public let plugins: [Plugin]
    /// The files and directories that were refused, in the order they were met.
    public let refusals: [PluginRefusal]

    private let byItemType: [String: Plugin]
    private let byHeaderType: [String: Plugin]

    init(plugins: [Plugin], refusals: [PluginRefusal], byItemType: [String: Plugin], byHeaderType: [String: Plugin]) {
        self.plugins = plugins
        self.refusals = refusals
        self.byItemType = byItemType
        self.byHeaderType = byHeaderType
    }

    /// A registry with no plugins and no refusals.
    public static var empty: PluginTable { Builder().build() }

    /// The plugin that renders items of `type`, if any.
    public func plugin(forItemType type: String) -> Plugin? { byItemType[type] }

    /// The plugin that renders the headers of sections of `type`, if any.
    public func plugin(forHeaderType type: String) -> Plugin? { byHeaderType[type] }

    /// Every routed type with its plugin's name, version and file, item types first, each
    /// kind sorted by type: the answer to a `plugins` status request.
    public var typeEntries: [PluginTypeEntry] {
        func entries(_ table: [String: Plugin], _ kind: PluginTypeEntry.Kind) -> [PluginTypeEntry] {
            table.keys.sorted().map { type in
                let plugin = table[type]!
                return PluginTypeEntry(
                    type: type, kind: kind, plugin: plugin.name, version: plugin.version, file: plugin.file)
            }
        }
        return entries(byItemType, .item) + entries(byHeaderType, .header)
    }
}

@available(*, unavailable)
extension PluginTable: Sendable {}
