#if canImport(Glibc)
import Glibc
#endif

/// Where rowcastd's configuration comes from: the embedded defaults, then the file (if any),
/// then the command-line flags. Loaded at start and again on every reload.
public struct ConfigurationSource: Sendable {
    /// The embedded defaults, already adjusted to the process (plugin directories next to the
    /// executable, `$STATE_DIRECTORY`).
    public var defaults: DaemonConfiguration
    /// The configuration file (`--config`), if any.
    public var file: String?
    /// The command-line flags.
    public var overrides: ConfigurationOverrides

    /// A source from its parts.
    public init(defaults: DaemonConfiguration, file: String?, overrides: ConfigurationOverrides) {
        self.defaults = defaults
        self.file = file
        self.overrides = overrides
    }

    /// Reads the file (again) and applies the flags; an error names the file or flag, the key
    /// and what is allowed.
    public func load() throws(ConfigurationError) -> DaemonConfiguration {
        var configuration = defaults
        if let file {
            configuration = try ConfigurationFile.apply(yaml: try Self.read(file), file: file, to: configuration)
        }
        configuration = try overrides.apply(to: configuration)
        try Self.checkEndpointsDiffer(configuration, file: file)
        try EndpointExposure.check(configuration, file: file)
        try ClusterRules.check(configuration, file: file)
        _ = try SocketPermissions(configuration, file: file)
        return configuration
    }

    /// The embedded defaults for this process: the plugin directories and plugin host given,
    /// and the state directory systemd names in `$STATE_DIRECTORY` (its first entry) when set.
    public static func processDefaults(
        pluginDirectories: [String], pluginHost: String? = nil, environment: [String: String]
    ) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        configuration.pluginDirectories = pluginDirectories
        if let pluginHost { configuration.pluginHost = pluginHost }
        if let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !state.isEmpty {
            configuration.stateDirectory = String(state)
        }
        return configuration
    }

    private static func read(_ file: String) throws(ConfigurationError) -> String {
        guard let stream = fopen(file, "r") else {
            throw ConfigurationError(
                .unreadableFile, file: file, key: "",
                problem: "cannot read the configuration file: \(String(cString: strerror(errno)))")
        }
        defer { fclose(stream) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, stream)
            if count > 0 { bytes.append(contentsOf: buffer[0..<count]) }
            if count < buffer.count {
                if ferror(stream) != 0 {
                    throw ConfigurationError(
                        .unreadableFile, file: file, key: "",
                        problem: "cannot read the configuration file: \(String(cString: strerror(errno)))")
                }
                break
            }
            if bytes.count > 1 << 20 {
                throw ConfigurationError(
                    .unreadableFile, file: file, key: "", problem: "the file is over 1 MiB; is it the right file?")
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(.invalidYAML, file: file, key: "", problem: "the file is not UTF-8 text")
        }
        return text
    }

    /// Two sockets cannot share one endpoint (wildcard ports aside).
    private static func checkEndpointsDiffer(
        _ configuration: DaemonConfiguration, file: String?
    ) throws(ConfigurationError) {
        let endpoints = [
            ("endpoints.ingest", configuration.ingestEndpoint),
            ("endpoints.control", configuration.controlEndpoint),
            ("endpoints.publish", configuration.publishEndpoint),
        ]
        for (index, (key, endpoint)) in endpoints.enumerated() where !endpoint.hasSuffix(":*") {
            if let earlier = endpoints[..<index].first(where: { $0.1 == endpoint }) {
                throw ConfigurationError(
                    .invalidValue, file: file, key: key,
                    problem:
                        "\(ConfigurationValue.quoted(endpoint)) is also \(earlier.0); each socket needs its own endpoint"
                )
            }
        }
    }
}
