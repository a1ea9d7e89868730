import Foundation
import RowCastDaemon
import Testing

/// Defaults, then the file, then the flags; read again on every load (a reload).
struct ConfigurationSourceTests {
    @Test("flags override the file, the file overrides the defaults")
    func precedence() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/rowcastd.yaml"
        try "heartbeat_ms: 500\nlog_level: debug\nlimits:\n  batch_limit: 10\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        var overrides = ConfigurationOverrides()
        overrides.set("heartbeat_ms", .integer(250))
        let source = ConfigurationSource(defaults: DaemonConfiguration(), file: file, overrides: overrides)
        let configuration = try source.load()
        #expect(configuration.heartbeatMilliseconds == 250)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.batchLimit == 10)
        #expect(configuration.ingestEndpoint == DaemonConfiguration().ingestEndpoint)

        try "log_level: error\n".write(toFile: file, atomically: true, encoding: .utf8)
        let reloaded = try source.load()
        #expect(reloaded.logLevel == .error)
        #expect(reloaded.batchLimit == DaemonConfiguration().batchLimit)
        #expect(reloaded.heartbeatMilliseconds == 250)
    }

    @Test("with neither file nor flags, the embedded defaults")
    func defaultsOnly() throws {
        #expect(
            try ConfigurationSource(defaults: DaemonConfiguration(), file: nil, overrides: ConfigurationOverrides())
                .load() == DaemonConfiguration())
    }

    @Test("a bad flag value names the flag; a missing file names the file")
    func errorsNameTheirSource() {
        var overrides = ConfigurationOverrides()
        overrides.set("limits.max_message_bytes", .integer(10))
        #expect(throws: ConfigurationError.self) {
            try ConfigurationSource(defaults: DaemonConfiguration(), file: nil, overrides: overrides).load()
        }
        do {
            _ = try ConfigurationSource(defaults: DaemonConfiguration(), file: nil, overrides: overrides).load()
        } catch {
            #expect(error.description == "--max-message-bytes: must be a whole number from 1024 to 268435456, got 10")
        }
        do {
            _ = try ConfigurationSource(
                defaults: DaemonConfiguration(), file: "/nonexistent/rowcastd.yaml", overrides: ConfigurationOverrides()
            ).load()
            Issue.record("a missing file was accepted")
        } catch {
            #expect(error.code == .unreadableFile)
            #expect(
                error.description
                    == "/nonexistent/rowcastd.yaml: cannot read the configuration file: No such file or directory")
        }
    }

    @Test("two sockets on one endpoint are refused, wildcard ports aside")
    func endpointsMustDiffer() throws {
        var overrides = ConfigurationOverrides()
        overrides.set("endpoints.control", .text("tcp://127.0.0.1:7701"))
        do {
            _ = try ConfigurationSource(defaults: DaemonConfiguration(), file: nil, overrides: overrides).load()
            Issue.record("two sockets on one endpoint were accepted")
        } catch {
            #expect(error.key == "endpoints.control")
            #expect(error.problem.contains("endpoints.ingest"))
        }
        var wildcard = ConfigurationOverrides()
        for key in ["endpoints.ingest", "endpoints.control", "endpoints.publish"] {
            wildcard.set(key, .text("tcp://127.0.0.1:*"))
        }
        #expect(
            try ConfigurationSource(defaults: DaemonConfiguration(), file: nil, overrides: wildcard).load()
                .controlEndpoint == "tcp://127.0.0.1:*")
    }

    @Test("systemd's STATE_DIRECTORY is the default state directory")
    func stateDirectoryFromSystemd() {
        let configuration = ConfigurationSource.processDefaults(
            pluginDirectories: ["/p"], environment: ["STATE_DIRECTORY": "/var/lib/rowcast:/var/lib/other"])
        #expect(configuration.stateDirectory == "/var/lib/rowcast")
        #expect(configuration.pluginDirectories == ["/p"])
        #expect(
            ConfigurationSource.processDefaults(pluginDirectories: [], environment: [:]).stateDirectory
                == DaemonConfiguration().stateDirectory)
    }
}
