/// How rowcastd runs plugin hosts (`plugin_host`, `plugin_timeout_ms`, `plugin_memory_mb`,
/// `plugin_user`, `plugin_unconfined`).
public struct PluginHostSettings: Sendable, Equatable {
    /// The `rowcast-plugin-host` executable.
    public var executable: String
    /// How long one callback may run before its host is killed, in milliseconds.
    public var callTimeoutMilliseconds: Int
    /// The host's address-space limit in MiB (0: none).
    public var memoryMegabytes: Int
    /// The user a host runs as when rowcastd runs as root (nil or empty: stay root).
    public var user: String?
    /// How long a new host may take to load its plugin and say hello, in milliseconds.
    public var startTimeoutMilliseconds: Int
    /// The plugins (NAME of `librowcast-NAME.so`) whose hosts run without seccomp, Landlock and
    /// a network namespace, because their renders need more (`plugin_unconfined`).
    public var unconfinedPlugins: [String]

    /// Settings from their parts.
    public init(
        executable: String, callTimeoutMilliseconds: Int = 1000, memoryMegabytes: Int = 1024, user: String? = "nobody",
        startTimeoutMilliseconds: Int = 10_000, unconfinedPlugins: [String] = []
    ) {
        self.executable = executable
        self.callTimeoutMilliseconds = callTimeoutMilliseconds
        self.memoryMegabytes = memoryMegabytes
        self.user = user
        self.startTimeoutMilliseconds = startTimeoutMilliseconds
        self.unconfinedPlugins = unconfinedPlugins
    }

    /// Whether the plugin in `file` runs relaxed: its NAME (of `librowcast-NAME.so`) is listed
    /// in ``unconfinedPlugins``.
    public func isUnconfined(_ file: String) -> Bool {
        guard !unconfinedPlugins.isEmpty else { return false }
        let base = file.split(separator: "/").last.map(String.init) ?? file
        guard PluginLoader.isPluginFileName(base) else { return false }
        let name = base.dropFirst(PluginLoader.fileNamePrefix.count).dropLast(PluginLoader.fileNameSuffix.count)
        return unconfinedPlugins.contains(String(name))
    }
}
