import RowCastJSON
import RowCastWire

/// One call a renderer makes: render an item, render a section header, or run an action.
public struct RenderJob: Sendable {
    /// Which plugin callback.
    public var kind: PluginCallKind
    /// The item or section type that picks the plugin.
    public var type: String
    /// The input JSON.
    public var input: [UInt8]

    /// A job of `kind` for `type` with `input`.
    public init(kind: PluginCallKind, type: String, input: [UInt8]) {
        self.kind = kind
        self.type = type
        self.input = input
    }
}

/// Why a plugin could not answer for one item: its host crashed or hung on it.
public struct PluginFaultReport: Sendable, Equatable {
    /// `plugin_crashed`, `plugin_timeout`, or `plugin_unavailable` (not sent: the plugin is
    /// paused).
    public var code: ErrorCode
    /// What happened, e.g. `killed by signal 11 (Segmentation fault)`.
    public var reason: String
    /// The plugin's name.
    public var plugin: String
    /// The plugin's file.
    public var file: String

    /// A report from its parts. The texts are stored with a quarantined item, so each U+0000
    /// in them (a plugin host may report any text) becomes U+FFFD (`StorableText`).
    public init(code: ErrorCode, reason: String, plugin: String, file: String) {
        self.code = code
        self.reason = StorableText.replacingNUL(reason)
        self.plugin = StorableText.replacingNUL(plugin)
        self.file = StorableText.replacingNUL(file)
    }
}
