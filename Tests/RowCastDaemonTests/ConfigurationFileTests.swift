import Foundation
import Logging
import RowCastDaemon
import Testing

/// The YAML file: the shipped one documents every key with its default, and every error
/// names the file, the line, the key and what is allowed.
struct ConfigurationFileTests {
    static let shipped = TestPaths.repositoryRoot.appendingPathComponent("Config/rowcastd.yaml").path

    /// The shipped file with its commented-out settings (`#key: value`, not `## prose`) enabled.
    static func uncommented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> String? in
            if line.hasPrefix("##") { return nil }
            if line.hasPrefix("#") { return String(line.dropFirst()) }
            return String(line)
        }.joined(separator: "\n")
    }

    @Test("the shipped file, as it is, leaves every embedded default in place")
    func shippedFileIsAllDefaults() throws {
        let text = try String(contentsOfFile: Self.shipped, encoding: .utf8)
        var defaults = DaemonConfiguration()
        defaults.pluginDirectories = ["/built-in"]
        #expect(try ConfigurationFile.apply(yaml: text, file: Self.shipped, to: defaults) == defaults)
    }

    @Test("the shipped file shows every key, each with its embedded default")
    func shippedFileDocumentsEveryDefault() throws {
        let text = Self.uncommented(try String(contentsOfFile: Self.shipped, encoding: .utf8))
        var defaults = DaemonConfiguration()
        defaults.pluginDirectories = ["/built-in"]
        var changed = defaults
        for setting in ConfigurationSchema.settings {
            // Start from values that differ from every default, so a missing key shows.
            switch setting.kind {
            case .endpoint:
                changed = try ConfigurationOverrides.with(setting.key, .text("inproc://x-\(setting.key)"), on: changed)
            case .httpEndpoint:
                changed = try ConfigurationOverrides.with(setting.key, .text("ipc:///x-\(setting.key)"), on: changed)
            case .path, .optionalPath:
                changed = try ConfigurationOverrides.with(setting.key, .text("/elsewhere"), on: changed)
            case .user: changed = try ConfigurationOverrides.with(setting.key, .text("someone-else"), on: changed)
            case .optionalText: changed = try ConfigurationOverrides.with(setting.key, .text("changed"), on: changed)
            case .paths: break  // [] means the built-in directories, checked below
            case .hostNames:
                changed = try ConfigurationOverrides.with(setting.key, .texts(["feeds.example.com"]), on: changed)
            case .origins:
                changed = try ConfigurationOverrides.with(setting.key, .texts(["https://app.example.com"]), on: changed)
            case .pluginNames: changed = try ConfigurationOverrides.with(setting.key, .texts(["maps"]), on: changed)
            case .integer(let range):
                changed = try ConfigurationOverrides.with(setting.key, .integer(range.lowerBound + 1), on: changed)
            case .choice(let choices):
                changed = try ConfigurationOverrides.with(setting.key, .text(choices.last!), on: changed)
            case .group: changed = try ConfigurationOverrides.with(setting.key, .text("some-group"), on: changed)
            case .mode: changed = try ConfigurationOverrides.with(setting.key, .text("0600"), on: changed)
            case .store:
                changed = try ConfigurationOverrides.with(setting.key, .text("sqlite:///elsewhere"), on: changed)
            case .nodeName: changed = try ConfigurationOverrides.with(setting.key, .text("node-x"), on: changed)
            case .hostName: changed = try ConfigurationOverrides.with(setting.key, .text("node-x.example"), on: changed)
            case .boolean:
                changed = try ConfigurationOverrides.with(
                    setting.key, .boolean(!(setting.value(in: changed) == .boolean(true))), on: changed)
            }
        }
        #expect(changed != defaults)
        let parsed = try ConfigurationFile.apply(yaml: text, file: Self.shipped, to: changed)
        #expect(parsed == defaults)
        for setting in ConfigurationSchema.settings {
            let leaf = setting.key.split(separator: ".").last!
            #expect(text.contains("\(leaf):"), "Config/rowcastd.yaml does not show \(setting.key)")
        }
    }

    @Test(
        "make install's file (the shipped one plus Config/rowcastd.service.yaml) binds ipc sockets in /run/rowcast for the group rowcast"
    )
    func installedFileUsesIPC() throws {
        let shipped = try String(contentsOfFile: Self.shipped, encoding: .utf8)
        let service = try String(
            contentsOfFile: TestPaths.repositoryRoot.appendingPathComponent("Config/rowcastd.service.yaml").path,
            encoding: .utf8)
        let configuration = try ConfigurationFile.apply(
            yaml: shipped + service, file: "/etc/rowcast/rowcastd.yaml", to: DaemonConfiguration())
        #expect(configuration.ingestEndpoint == "ipc:///run/rowcast/ingest.sock")
        #expect(configuration.controlEndpoint == "ipc:///run/rowcast/control.sock")
        #expect(configuration.publishEndpoint == "ipc:///run/rowcast/publish.sock")
        #expect(configuration.httpEndpoint == "ipc:///run/rowcast/http.sock")
        #expect(configuration.socketMode == "0660")
        #expect(configuration.socketGroup == "rowcast")
    }

    @Test("render writes a file that reads back as the same configuration")
    func renderRoundTrips() throws {
        var configuration = DaemonConfiguration()
        configuration.pluginDirectories = ["/a b", "/c\"d"]
        configuration.controlEndpoint = "ipc:///run/rowcast/control.sock"
        configuration.logLevel = .debug
        configuration.durability = .full
        configuration.batchLimit = 7
        let text = ConfigurationFile.render(configuration)
        #expect(
            try ConfigurationFile.apply(yaml: text, file: "rendered.yaml", to: DaemonConfiguration()) == configuration)
    }

    @Test(
        "nested keys, lists and choices are read",
        arguments: [
            (
                "endpoints:\n  control: \"ipc:///run/rowcast/c.sock\"\n", "endpoints.control",
                ConfigurationValue.text("ipc:///run/rowcast/c.sock")
            ),
            ("plugin_directories: [\"/opt/p\", relative/q]\n", "plugin_directories", .texts(["/opt/p", "relative/q"])),
            ("limits:\n  batch_limit: 12\n", "limits.batch_limit", .integer(12)),
            ("durability: full\n", "durability", .text("full")),
            ("log_level: debug\n", "log_level", .text("debug")),
            ("state_directory: /var/lib/rowcast\n", "state_directory", .text("/var/lib/rowcast")),
            ("endpoints: {ingest: \"tcp://0.0.0.0:7701\"}\n", "endpoints.ingest", .text("tcp://0.0.0.0:7701")),
        ])
    func reads(yaml: String, key: String, expected: ConfigurationValue) throws {
        let configuration = try ConfigurationFile.apply(
            yaml: yaml, file: "/etc/rowcast/rowcastd.yaml", to: DaemonConfiguration())
        #expect(ConfigurationSchema.setting(key)?.value(in: configuration) == expected)
    }

    @Test("an empty file or only comments keeps the defaults")
    func emptyFile() throws {
        #expect(
            try ConfigurationFile.apply(yaml: "", file: "f.yaml", to: DaemonConfiguration()) == DaemonConfiguration())
        #expect(
            try ConfigurationFile.apply(yaml: "# nothing\n", file: "f.yaml", to: DaemonConfiguration())
                == DaemonConfiguration())
    }

    @Test(
        "every error names the file, the line, the key and what is allowed",
        arguments: [
            (
                "heartbeat: 5\n", ConfigurationError.Code.unknownKey, 1, "heartbeat",
                "allowed at the top level: endpoints, plugin_directories"
            ),
            (
                "limits:\n  max_bytes: 5\n", .unknownKey, 2, "limits.max_bytes",
                "allowed under limits: max_message_bytes, batch_limit"
            ),
            (
                "endpoints:\n  ingest: 7701\n", .wrongType, 2, "endpoints.ingest",
                "must be a ZeroMQ endpoint such as \"tcp://127.0.0.1:7701\""
            ),
            ("endpoints:\n  ingest: \"http://x\"\n", .invalidValue, 2, "endpoints.ingest", "transports: tcp, ipc"),
            (
                "endpoints: tcp://127.0.0.1:1\n", .wrongType, 1, "endpoints",
                "must be a mapping of ingest, control, publish"
            ),
            (
                "heartbeat_ms: fast\n", .wrongType, 1, "heartbeat_ms",
                "must be a whole number from 10 to 3600000, got the text \"fast\""
            ),
            (
                "heartbeat_ms: 2.5\n", .wrongType, 1, "heartbeat_ms",
                "must be a whole number from 10 to 3600000, got the number 2.5"
            ),
            ("heartbeat_ms: 5\n", .invalidValue, 1, "heartbeat_ms", "must be a whole number from 10 to 3600000, got 5"),
            ("\n\nlimits:\n  linger_ms: -1\n", .invalidValue, 4, "limits.linger_ms", "from 0 to 60000"),
            (
                "log_level: loud\n", .invalidValue, 1, "log_level",
                "must be one of trace, debug, info, notice, warning, error, critical, got \"loud\""
            ),
            ("durability: 1\n", .wrongType, 1, "durability", "must be one of normal, full, got the number 1"),
            ("plugin_directories: /opt/p\n", .wrongType, 1, "plugin_directories", "must be a list of non-empty paths"),
            ("plugin_directories: [\"\"]\n", .invalidValue, 1, "plugin_directories", "got an empty path in the list"),
            ("state_directory:\n", .wrongType, 1, "state_directory", "must be a non-empty path, got nothing (null)"),
            ("state_directory: \"\"\n", .invalidValue, 1, "state_directory", "must be a non-empty path"),
        ])
    func errors(yaml: String, code: ConfigurationError.Code, line: Int, key: String, allowed: String) {
        let file = "/etc/rowcast/rowcastd.yaml"
        #expect {
            _ = try ConfigurationFile.apply(yaml: yaml, file: file, to: DaemonConfiguration())
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            let text = error.description
            return error.code == code && error.file == file && error.line == line && error.key == key
                && text.hasPrefix("\(file):\(line): \(key): ") && text.contains(allowed)
        }
    }

    @Test("a file that is not YAML, or not a mapping, or repeats a key, is refused naming the file")
    func malformed() {
        for (yaml, expectedLine) in [
            ("log_level: [\n", 2), ("- a\n- b\n", 1), ("log_level: info\nlog_level: debug\n", 1),
        ] {
            #expect {
                _ = try ConfigurationFile.apply(yaml: yaml, file: "bad.yaml", to: DaemonConfiguration())
            } throws: { error in
                guard let error = error as? ConfigurationError else { return false }
                return error.file == "bad.yaml" && error.line == expectedLine
                    && error.description.hasPrefix("bad.yaml:\(expectedLine): ")
            }
        }
    }
}

extension ConfigurationOverrides {
    /// `configuration` with one key set, checked like a flag.
    static func with(
        _ key: String, _ value: ConfigurationValue, on configuration: DaemonConfiguration
    ) throws -> DaemonConfiguration {
        var overrides = ConfigurationOverrides()
        overrides.set(key, value)
        return try overrides.apply(to: configuration)
    }
}
