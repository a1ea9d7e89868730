/// Why a configuration could not be used: which file (or flag), which key, and what is allowed.
/// rowcastd prints it as one line and exits with status 78 (`EX_CONFIG`); a reload that hits one
/// keeps the running configuration and reports it.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem this is; codes can be added without breaking callers.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, e.g. `unknown_key`.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        public var description: String { rawValue }

        /// The file cannot be read.
        public static let unreadableFile = Code(rawValue: "unreadable_file")
        /// The file is not valid YAML.
        public static let invalidYAML = Code(rawValue: "invalid_yaml")
        /// A key the configuration does not have.
        public static let unknownKey = Code(rawValue: "unknown_key")
        /// A value of the wrong type (a list where a number belongs, say).
        public static let wrongType = Code(rawValue: "wrong_type")
        /// A value of the right type that is not allowed (out of range, not one of the choices).
        public static let invalidValue = Code(rawValue: "invalid_value")
        /// A combination that would let anyone in (a network endpoint without CURVE, say).
        public static let insecure = Code(rawValue: "insecure")
    }

    /// What kind of problem this is.
    public var code: Code
    /// The configuration file, or nil when the value came from a command-line flag.
    public var file: String?
    /// The line in the file (1-based), when known.
    public var line: Int?
    /// The key, dotted (`limits.max_message_bytes`), or the flag (`--heartbeat-ms`); empty when
    /// the problem concerns the whole file.
    public var key: String
    /// What is wrong and what is allowed.
    public var problem: String

    /// An error from its parts.
    public init(_ code: Code, file: String?, line: Int? = nil, key: String, problem: String) {
        self.code = code
        self.file = file
        self.line = line
        self.key = key
        self.problem = problem
    }

    /// `FILE:LINE: KEY: PROBLEM`, leaving out what is unknown.
    public var description: String {
        var parts: [String] = []
        if let file { parts.append(line.map { "\(file):\($0)" } ?? file) }
        if !key.isEmpty { parts.append(key) }
        parts.append(problem)
        return parts.joined(separator: ": ")
    }
}
