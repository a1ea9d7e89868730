import RowCastWire

/// An item quarantined because its plugin crashed or hung on it, as the durable store keeps
/// it: written in the commit that stores the item, read back at start, so that no start and
/// no reload renders it again (only `rowcast quarantine retry`, or a new version of the item).
public struct QuarantinedItem: Sendable, Equatable {
    /// The feed.
    public var feed: String
    /// The item id.
    public var id: String
    /// The item's type.
    public var type: String
    /// What its plugin did: `plugin_crashed` or `plugin_timeout`.
    public var code: ErrorCode
    /// How, e.g. `killed by signal 11 (Segmentation fault)`.
    public var reason: String
    /// The plugin's name.
    public var plugin: String
    /// The plugin's file.
    public var file: String
    /// When, in milliseconds since the epoch.
    public var at: Int64

    /// An entry from its parts.
    public init(
        feed: String, id: String, type: String, code: ErrorCode, reason: String, plugin: String, file: String,
        at: Int64
    ) {
        self.feed = feed
        self.id = id
        self.type = type
        self.code = code
        self.reason = reason
        self.plugin = plugin
        self.file = file
        self.at = at
    }
}

/// How the quarantine changed since the last commit: entries to write and entries to delete,
/// each key once, with its final state.
public struct QuarantineChanges: Sendable {
    /// Entries added (or replaced).
    public var entered: [QuarantinedItem] = []
    /// Items released (rendered, retried, replaced, deleted or dropped from the quarantine).
    public var left: [(feed: String, id: String)] = []

    /// No change.
    public init() {}

    /// Whether there is nothing to write.
    public var isEmpty: Bool { entered.isEmpty && left.isEmpty }
}
