extension PluginTable {
    /// Collects plugins and refusals, rejects a plugin that claims a type or a name another
    /// plugin already has, then freezes everything with ``build()``.
    ///
    /// First come, first served: the plugin added first keeps the type, and the later one is
    /// refused as a whole (never half-routed), with a message naming both plugins and files.
    public struct Builder {
        private var plugins: [Plugin] = []
        private var refusals: [PluginRefusal] = []
        private var byName: [String: Plugin] = [:]
        private var byItemType: [String: Plugin] = [:]
        private var byHeaderType: [String: Plugin] = [:]

        /// An empty builder.
        public init() {}

        /// Adds `plugin` unless its name or one of its types is taken; returns the refusal
        /// (also recorded in the registry) when it is.
        @discardableResult
        public mutating func add(_ plugin: Plugin) -> PluginRefusal? {
            if let refusal = conflict(of: plugin) {
                refusals.append(refusal)
                return refusal
            }
            plugins.append(plugin)
            byName[plugin.name] = plugin
            for type in plugin.itemTypes { byItemType[type] = plugin }
            for type in plugin.headerTypes { byHeaderType[type] = plugin }
            return nil
        }

        /// Records a refusal met while loading.
        public mutating func refuse(_ refusal: PluginRefusal) {
            refusals.append(refusal)
        }

        /// The frozen registry.
        public func build() -> PluginTable {
            PluginTable(plugins: plugins, refusals: refusals, byItemType: byItemType, byHeaderType: byHeaderType)
        }

        private func conflict(of plugin: Plugin) -> PluginRefusal? {
            if let other = byName[plugin.name] {
                return PluginRefusal(
                    file: plugin.file,
                    code: .duplicateName,
                    reason: "plugin \(plugin.name) is already loaded from \(other.file); remove one of the two files"
                )
            }
            for type in plugin.itemTypes {
                if let other = byItemType[type] { return duplicate(plugin, other, "item type", type) }
            }
            for type in plugin.headerTypes {
                if let other = byHeaderType[type] { return duplicate(plugin, other, "section type", type) }
            }
            return nil
        }

        private func duplicate(_ plugin: Plugin, _ other: Plugin, _ kind: String, _ type: String) -> PluginRefusal {
            PluginRefusal(
                file: plugin.file,
                code: .duplicateType,
                reason:
                    "plugin \(plugin.name) (\(plugin.file)) claims \(kind) \"\(type)\", already claimed by plugin \(other.name) (\(other.file)); remove one of the two plugins or give each its own types"
            )
        }
    }
}
