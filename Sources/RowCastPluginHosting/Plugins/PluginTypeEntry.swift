import RowCastJSON

/// One routed type in a ``PluginRegistry``: which plugin renders it, for a `plugins` status
/// request.
public struct PluginTypeEntry: Sendable, Equatable {
    /// Whether the type is an item type or a section (header) type.
    public enum Kind: String, Sendable {
        /// An item type: the plugin renders rows.
        case item
        /// A section type: the plugin renders header rows.
        case header
    }

    /// The item or section type.
    public let type: String
    /// Item or header.
    public let kind: Kind
    /// The plugin's name.
    public let plugin: String
    /// The plugin's version.
    public let version: String
    /// The plugin file's path.
    public let file: String

    /// An entry for `type`, rendered by `plugin` at `version` loaded from `file`.
    public init(type: String, kind: Kind, plugin: String, version: String, file: String) {
        self.type = type
        self.kind = kind
        self.plugin = plugin
        self.version = version
        self.file = file
    }

    /// `{"type", "kind", "plugin", "version", "file"}`.
    public var jsonValue: JSONValue {
        [
            "type": .string(type),
            "kind": .string(kind.rawValue),
            "plugin": .string(plugin),
            "version": .string(version),
            "file": .string(file),
        ]
    }
}
