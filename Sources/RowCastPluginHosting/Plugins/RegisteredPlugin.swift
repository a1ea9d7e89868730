import RowCastWire

/// What the registry needs to know of a plugin to route types to it, whether it is loaded into
/// rowcastd (``LoadedPlugin``) or runs in a host process (``HostedPlugin``).
public protocol RegisteredPlugin: AnyObject {
    /// The plugin's name, e.g. `product`.
    var name: String { get }
    /// The plugin's version, e.g. `1.0.0`.
    var version: String { get }
    /// The plugin file's path as found in its directory.
    var file: String { get }
    /// The item types it renders.
    var itemTypes: [String] { get }
    /// The section types whose headers it renders.
    var headerTypes: [String] { get }
    /// The identity of the file when it was loaded.
    var fileIdentity: PluginFileIdentity { get }
    /// The ABI revision its descriptor covers: 1, or 2 when it has `handle_action`.
    var abiRevision: Int { get }
    /// Name, version, file and the file's identity (``PluginFileIdentity/rendererIdentity(name:version:file:)``):
    /// any change means the plugin's rows must be rendered again. Fixed when the plugin is
    /// loaded, and asked for in every commit.
    var rendererIdentity: String { get }
}

extension PluginFileIdentity {
    /// The renderer identity of the plugin `name` at `version` loaded from `file` with this
    /// file identity: `name@version@file@device:inode:size:seconds.nanoseconds`. The store
    /// keeps it as text, so a U+0000 (a host's hello may say any name or version) becomes
    /// U+FFFD (`StorableText`).
    public func rendererIdentity(name: String, version: String, file: String) -> String {
        StorableText.replacingNUL(
            "\(name)@\(version)@\(file)@\(device):\(inode):\(size):\(modifiedSeconds).\(modifiedNanoseconds)")
    }
}

extension LoadedPlugin: RegisteredPlugin {}
