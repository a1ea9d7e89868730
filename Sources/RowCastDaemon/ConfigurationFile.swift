import Yams

/// Reads the YAML configuration file onto a configuration, and writes one back as YAML.
///
/// The file is a mapping of the keys of `ConfigurationSchema`; sections (`endpoints`,
/// `limits`) are nested mappings. Every key is optional: a key that is absent keeps the value
/// it had before (the embedded default). An unknown key, a value of the wrong type or an
/// impossible value is a `ConfigurationError` naming the file, the line, the key and what is
/// allowed. Relative paths are relative to rowcastd's working directory (`/` under systemd), as
/// on the command line. An empty `plugin_directories` list keeps the built-in directories.
public enum ConfigurationFile {
    /// `base` with the values of the YAML `text` (read from `file`) applied.
    public static func apply(
        yaml text: String, file: String, to base: DaemonConfiguration
    ) throws(ConfigurationError) -> DaemonConfiguration {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw yamlError(error, file: file)
        }
        guard let root else { return base }  // empty, or only comments
        guard case .mapping(let mapping) = root else {
            throw ConfigurationError(
                .wrongType, file: file, line: root.mark?.line, key: "",
                problem:
                    "the file must be a mapping of keys to values (see Config/rowcastd.yaml), got \(describe(root))")
        }
        var configuration = base
        try apply(mapping, prefix: "", file: file, to: &configuration)
        return configuration
    }

    /// The configuration as a YAML file of the same shape, every key present.
    public static func render(_ configuration: DaemonConfiguration) -> String {
        var lines: [String] = []
        var openSection: String?
        for setting in ConfigurationSchema.settings {
            let value = setting.read(configuration)
            if let dot = setting.key.firstIndex(of: ".") {
                let section = String(setting.key[..<dot])
                if openSection != section {
                    lines.append("\(section):")
                    openSection = section
                }
                lines.append("  \(setting.key[setting.key.index(after: dot)...]): \(value)")
            } else {
                openSection = nil
                lines.append("\(setting.key): \(value)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func apply(
        _ mapping: Node.Mapping, prefix: String, file: String, to configuration: inout DaemonConfiguration
    ) throws(ConfigurationError) {
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let scalar) = keyNode, keyNode.tag.rawValue == Tag.Name.str.rawValue else {
                throw ConfigurationError(
                    .wrongType, file: file, line: keyNode.mark?.line,
                    key: prefix.isEmpty ? "" : String(prefix.dropLast()),
                    problem: "keys must be names, got \(describe(keyNode))")
            }
            let key = prefix + scalar.string
            if ConfigurationSchema.sections.contains(key) {
                guard case .mapping(let nested) = valueNode else {
                    throw ConfigurationError(
                        .wrongType, file: file, line: valueNode.mark?.line ?? keyNode.mark?.line, key: key,
                        problem:
                            "must be a mapping of \(ConfigurationSchema.keys(under: key + ".").joined(separator: ", ")), got \(describe(valueNode))"
                    )
                }
                try apply(nested, prefix: key + ".", file: file, to: &configuration)
                continue
            }
            guard let setting = ConfigurationSchema.setting(key) else {
                let allowed = ConfigurationSchema.keys(under: prefix).joined(separator: ", ")
                throw ConfigurationError(
                    .unknownKey, file: file, line: keyNode.mark?.line, key: key,
                    problem:
                        "unknown key; allowed \(prefix.isEmpty ? "at the top level" : "under \(prefix.dropLast())"): \(allowed)"
                )
            }
            let line = valueNode.mark?.line ?? keyNode.mark?.line
            guard let value = convert(valueNode, for: setting) else {
                throw ConfigurationError(
                    .wrongType, file: file, line: line, key: key,
                    problem: "must be \(setting.allowed), got \(describe(valueNode))")
            }
            if let problem = setting.problem(with: value) {
                throw ConfigurationError(.invalidValue, file: file, line: line, key: key, problem: problem)
            }
            // [] for directories means the built-in ones.
            if case .paths = setting.kind, case .texts(let paths) = value, paths.isEmpty { continue }
            setting.write(&configuration, value)
        }
    }

    /// The node as a value of the kind `setting` takes, or nil when its type is wrong.
    private static func convert(_ node: Node, for setting: ConfigurationSetting) -> ConfigurationValue? {
        switch setting.kind {
        case .endpoint, .httpEndpoint, .choice, .path, .optionalPath, .optionalText, .user, .group, .store, .nodeName,
            .hostName:
            return text(node).map(ConfigurationValue.text)
        case .mode:
            // 0660 unquoted is an integer to YAML; the digits as written are what counts.
            guard case .scalar(let scalar) = node else { return nil }
            return .text(scalar.string)
        case .paths, .hostNames, .origins, .pluginNames:
            guard case .sequence(let sequence) = node else { return nil }
            var paths: [String] = []
            for element in sequence {
                guard let path = text(element) else { return nil }
                paths.append(path)
            }
            return .texts(paths)
        case .integer:
            guard node.tag.rawValue == Tag.Name.int.rawValue, let number = node.int else { return nil }
            return .integer(number)
        case .boolean:
            guard node.tag.rawValue == Tag.Name.bool.rawValue, let value = node.bool else { return nil }
            return .boolean(value)
        }
    }

    private static func text(_ node: Node) -> String? {
        guard case .scalar(let scalar) = node, node.tag.rawValue == Tag.Name.str.rawValue else { return nil }
        return scalar.string
    }

    private static func describe(_ node: Node) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar):
            switch Tag.Name(rawValue: node.tag.rawValue) {
            case .null: return "nothing (null)"
            case .bool: return "the boolean \(scalar.string)"
            case .int, .float: return "the number \(scalar.string)"
            default: return "the text \(ConfigurationValue.quoted(scalar.string))"
            }
        }
    }

    private static func yamlError(_ error: any Error, file: String) -> ConfigurationError {
        guard let yaml = error as? YamlError else {
            return ConfigurationError(.invalidYAML, file: file, key: "", problem: "not valid YAML: \(error)")
        }
        switch yaml {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return ConfigurationError(
                .invalidYAML, file: file, line: mark.line, key: "", problem: "not valid YAML: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ConfigurationError(
                .invalidYAML, file: file, line: context.mark.line, key: duplicates.sorted().joined(separator: ", "),
                problem: "given more than once; give each key once")
        default:
            return ConfigurationError(
                .invalidYAML, file: file, key: "",
                problem: "not valid YAML: \(String(describing: yaml).split(separator: "\n").first ?? "")")
        }
    }
}
