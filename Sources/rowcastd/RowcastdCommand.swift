import ArgumentParser
import Logging
import RowCastDaemon
import RowCastKit

#if canImport(Glibc)
import Glibc
#endif

/// `rowcastd`: the RowCast daemon.
@main
struct RowcastdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rowcastd",
        abstract: "The RowCast daemon: renders feed items into rows with plugins and publishes the changes.",
        discussion: """
            Producers send feed operations to the ingest (PULL) or control (ROUTER) socket; \
            subscribers get deltas from the publish (PUB) socket. See docs/PROTOCOL.md.

            With no options rowcastd listens on 127.0.0.1 ports 7701 (ingest), 7702 (control) and \
            7703 (publish) and loads plugins (librowcast-*.so) from the directory of its own \
            executable and from ../lib/rowcast/plugins next to it. When every socket is bound it \
            prints one line: "rowcastd ready ingest=... control=... publish=...".

            SIGTERM or SIGINT stops it (a second one stops it at once); SIGHUP rescans the plugin \
            directories.
            """,
        version: RowCastVersion.current
    )

    @Option(name: .long, help: ArgumentHelp("ZeroMQ endpoint of the ingest (PULL) socket.", valueName: "endpoint"))
    var ingest = DaemonConfiguration().ingestEndpoint

    @Option(name: .long, help: ArgumentHelp("ZeroMQ endpoint of the control (ROUTER) socket.", valueName: "endpoint"))
    var control = DaemonConfiguration().controlEndpoint

    @Option(name: .long, help: ArgumentHelp("ZeroMQ endpoint of the publish (PUB) socket.", valueName: "endpoint"))
    var publish = DaemonConfiguration().publishEndpoint

    @Option(name: .customLong("plugins"), help: ArgumentHelp("A directory to load plugins (librowcast-*.so) from; repeat for several. Replaces the default directories.", valueName: "dir"))
    var pluginDirectories: [String] = []

    @Option(name: .long, help: ArgumentHelp("The largest request accepted, in bytes.", valueName: "bytes"))
    var maxMessageBytes = DaemonConfiguration().maximumMessageBytes

    @Option(name: .long, help: ArgumentHelp("Heartbeat after this many milliseconds without publishing.", valueName: "ms"))
    var heartbeatMs = DaemonConfiguration().heartbeatMilliseconds

    @Option(name: .long, help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical (got \"\(logLevel)\")")
        }
        guard maxMessageBytes >= 1024 else { throw ValidationError("--max-message-bytes must be at least 1024") }
        guard heartbeatMs >= 10 else { throw ValidationError("--heartbeat-ms must be at least 10") }
    }

    func run() throws {
        let level = Logger.Level(rawValue: logLevel)!
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "rowcastd")

        var configuration = DaemonConfiguration()
        configuration.ingestEndpoint = ingest
        configuration.controlEndpoint = control
        configuration.publishEndpoint = publish
        configuration.pluginDirectories = pluginDirectories.isEmpty ? Self.defaultPluginDirectories() : pluginDirectories
        configuration.maximumMessageBytes = maxMessageBytes
        configuration.heartbeatMilliseconds = heartbeatMs

        let signal = StopSignal()
        let handlers = signal.installSignalHandlers()
        let daemon = try Daemon(configuration: configuration, logger: logger)
        do {
            try daemon.start()
        } catch {
            throw RowcastdFailure(message: "cannot start: \(error)")
        }
        print(daemon.readyLine)
        fflush(nil)
        try daemon.run(until: signal)
        withExtendedLifetime(handlers) {}
    }

    /// The directory of this executable, then `../lib/rowcast/plugins` beside it: those of the
    /// two that exist (a directory named explicitly with --plugins must exist).
    static func defaultPluginDirectories() -> [String] {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return ["/usr/local/lib/rowcast/plugins"] }
        let path = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let parent = directory.split(separator: "/").dropLast().joined(separator: "/")
        return [directory, "/" + parent + "/lib/rowcast/plugins"].filter { access($0, R_OK | X_OK) == 0 }
    }
}

/// A start-up failure, printed as one line on standard error with exit status 1.
struct RowcastdFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { "rowcastd: \(message)" }
}
