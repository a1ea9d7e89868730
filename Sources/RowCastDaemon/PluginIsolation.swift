/// Where plugins run (`plugin_isolation`).
public enum PluginIsolation: String, Sendable, CaseIterable {
    /// Each plugin file in a `rowcast-plugin-host` process of its own: a plugin's crash, hang or
    /// runaway memory costs one item, never the service.
    case process
    /// Inside rowcastd, for trusted plugins: no host processes and no round trips, but a plugin
    /// fault stops the daemon.
    case inProcess = "in_process"
}
