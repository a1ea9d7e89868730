import Logging
import RowCastJSON
import RowCastHTTP
import RowCastSupport

/// One key of the configuration: its dotted name, the values it takes, where it lives in
/// `DaemonConfiguration`, and whether a reload applies it or only a restart does.
public struct ConfigurationSetting: Sendable {
    /// The kinds of value a key takes.
    public enum Kind: Sendable {
        /// A ZeroMQ endpoint (`tcp://...`, `ipc://...`).
        case endpoint
        /// An HTTP endpoint (`tcp://HOST:PORT`, `ipc:///path`), or "" for none.
        case httpEndpoint
        /// A non-empty path.
        case path
        /// A path, or "" for the built-in default.
        case optionalPath
        /// A list of non-empty paths.
        case paths
        /// A list of host names an HTTP endpoint serves (`HTTPOriginPolicy.allowedHosts`).
        case hostNames
        /// A list of origins whose pages may use an HTTP endpoint (`HTTPOriginPolicy.allowedOrigins`).
        case origins
        /// A list of plugin names (the NAME of `librowcast-NAME.so`).
        case pluginNames
        /// Any text of at most 256 bytes without control characters (empty: none).
        case optionalText
        /// A user name (empty: none).
        case user
        /// A group name (empty: none).
        case group
        /// An octal file mode, such as "0660".
        case mode
        /// The durable store (`StoreLocation`): a PostgreSQL or SQLite URL, or "" for the default.
        case store
        /// A cluster node's name, or "" for none (`ClusterRules.problem(withNodeName:)`).
        case nodeName
        /// One host name or IP address, or "" for none.
        case hostName
        /// A whole number in a range.
        case integer(ClosedRange<Int>)
        /// One of a fixed set of words.
        case choice([String])
        /// true or false.
        case boolean
    }

    /// The key as written in the file, dotted for nested keys (`limits.linger_ms`).
    public let key: String
    /// The command-line flag that overrides it, if any (`--linger-ms`).
    public let flag: String?
    /// What values it takes.
    public let kind: Kind
    /// Whether a reload (SIGHUP, `reload`) applies a change; otherwise only a restart does.
    public let appliesOnReload: Bool
    /// Reads the key's value from a configuration.
    let read: @Sendable (DaemonConfiguration) -> ConfigurationValue
    /// Writes a value that `problem(with:)` accepted.
    let write: @Sendable (inout DaemonConfiguration, ConfigurationValue) -> Void

    /// The key's value in `configuration`.
    public func value(in configuration: DaemonConfiguration) -> ConfigurationValue { read(configuration) }

    /// What is allowed, in words, for error messages.
    public var allowed: String {
        switch kind {
        case .endpoint: return EndpointSyntax.allowed
        case .httpEndpoint: return HTTPEndpoint.allowed
        case .path: return "a non-empty path"
        case .optionalPath: return "a path, or \"\" for the default"
        case .optionalText: return "a text of at most 256 bytes, or \"\" for none"
        case .user: return "a user name, or \"\" for none"
        case .group: return "a group name, or \"\" for rowcastd's own group"
        case .mode: return "an octal file mode such as \"0660\" (at most 0777)"
        case .store: return StoreLocation.allowed
        case .nodeName: return ClusterRules.allowedNodeName
        case .hostName: return "a host name or IP address, or \"\" for none"
        case .paths:
            return
                "a list of non-empty paths, such as [\"/usr/local/lib/rowcast/plugins\"] ([] for the built-in directories)"
        case .hostNames:
            return
                "a list of host names, such as [\"feeds.example.com\", \".example.org\"] (\".NAME\": it and every name under it)"
        case .origins: return "a list of origins, such as [\"https://app.example.com\"]"
        case .pluginNames: return "a list of plugin names (NAME of librowcast-NAME.so), such as [\"maps\"]"
        case .integer(let range): return "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .choice(let choices): return "one of " + choices.joined(separator: ", ")
        case .boolean: return "true or false"
        }
    }

    /// Why `value` is not allowed for this key, or nil when it is.
    public func problem(with value: ConfigurationValue) -> String? {
        switch (kind, value) {
        case (.endpoint, .text(let text)):
            return EndpointSyntax.problem(with: text)
        case (.httpEndpoint, .text(let text)):
            return HTTPEndpoint.problem(with: text)
        case (.mode, .text(let text)):
            return SocketPermissions.parseMode(text) == nil ? "must be \(allowed), got \(value)" : nil
        case (.user, .text(let text)), (.group, .text(let text)):
            return text.contains(where: { $0 == ":" || $0 == "/" || $0.isWhitespace })
                ? "must be \(allowed), got \(value)" : nil
        case (.store, .text(let text)):
            do {
                _ = try StoreLocation(parsing: text)
                return nil
            } catch {
                return error.description
            }
        case (.nodeName, .text(let text)):
            return ClusterRules.problem(withNodeName: text)
        case (.hostName, .text(let text)):
            return ClusterRules.problem(withHost: text)
        case (.optionalPath, .text):
            return nil
        case (.optionalText, .text(let text)):
            return text.utf8.count > 256
                || text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                ? "must be \(allowed), got \(value)" : nil
        case (.path, .text(let text)):
            return text.isEmpty ? "must be \(allowed), got an empty text" : nil
        case (.paths, .texts(let texts)):
            return texts.contains(where: \.isEmpty) ? "must be \(allowed), got an empty path in the list" : nil
        case (.hostNames, .texts(let texts)):
            return texts.lazy.compactMap(HTTPOriginPolicy.problem(withHost:)).first.map { "must be \(allowed): \($0)" }
        case (.origins, .texts(let texts)):
            return texts.lazy.compactMap(HTTPOriginPolicy.problem(withOrigin:)).first.map {
                "must be \(allowed): \($0)"
            }
        case (.pluginNames, .texts(let names)):
            return names.contains(where: { $0.isEmpty || $0.contains("/") || $0.contains(where: \.isWhitespace) })
                ? "must be \(allowed), got \(value)" : nil
        case (.integer(let range), .integer(let number)):
            return range.contains(number) ? nil : "must be \(allowed), got \(number)"
        case (.choice(let choices), .text(let text)):
            return choices.contains(text) ? nil : "must be \(allowed), got \(value)"
        case (.boolean, .boolean):
            return nil
        default:
            return "must be \(allowed), got \(value)"
        }
    }
}
