/// Values given on the command line; they win over the configuration file.
public struct ConfigurationOverrides: Sendable, Equatable {
    /// One flag's value for one key.
    public struct Entry: Sendable, Equatable {
        /// The dotted key (`heartbeat_ms`).
        public var key: String
        /// The value as given.
        public var value: ConfigurationValue
    }

    /// The flags given, in order.
    public private(set) var entries: [Entry] = []

    /// No overrides.
    public init() {}

    /// Overrides `key` (a key of `ConfigurationSchema`) with `value`; nil leaves it alone.
    public mutating func set(_ key: String, _ value: ConfigurationValue?) {
        precondition(ConfigurationSchema.setting(key) != nil, "no configuration key \(key)")
        guard let value else { return }
        entries.removeAll { $0.key == key }
        entries.append(Entry(key: key, value: value))
    }

    /// `configuration` with every override applied; a value that is not allowed is an error
    /// naming the flag.
    public func apply(to configuration: DaemonConfiguration) throws(ConfigurationError) -> DaemonConfiguration {
        var result = configuration
        for entry in entries {
            let setting = ConfigurationSchema.setting(entry.key)!
            if let problem = setting.problem(with: entry.value) {
                throw ConfigurationError(.invalidValue, file: nil, key: setting.flag ?? entry.key, problem: problem)
            }
            setting.write(&result, entry.value)
        }
        return result
    }
}
