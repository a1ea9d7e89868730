import Foundation
import Logging
import RowCastDaemon

#if canImport(Glibc)
import Glibc
#endif

/// `rowcast-bench --daemon-only BINARIES STATE`: rowcastd's daemon (the same `Daemon` the
/// executable runs) in this process, with the plugins of BINARIES in process (in their hosts
/// with `ROWCAST_BENCH_DAEMON_ISOLATION=process`), its state in STATE, wildcard loopback
/// ports; prints the ready line, stops cleanly on SIGTERM. For the
/// `instructions` workload: valgrind 3.19 dies in the rowcastd executable's signal handling
/// (libdispatch's signal thread), not in the daemon's own code, which this runs unchanged.
enum DaemonOnly {
    /// Asked to stop by SIGTERM.
    nonisolated(unsafe) static let stop = StopSignal()

    static func run(binaries: String, state: String) -> Never {
        var configuration = DaemonConfiguration()
        configuration.ingestEndpoint = "tcp://127.0.0.1:*"
        configuration.controlEndpoint = "tcp://127.0.0.1:*"
        configuration.publishEndpoint = "tcp://127.0.0.1:*"
        configuration.pluginDirectories = [binaries]
        // ROWCAST_BENCH_DAEMON_ISOLATION=process: the plugins in their hosts (BINARIES/rowcast-plugin-host;
        // callgrind then counts the loop's side of the round trips, not the hosts).
        if ProcessInfo.processInfo.environment["ROWCAST_BENCH_DAEMON_ISOLATION"] == "process" {
            configuration.pluginIsolation = .process
            configuration.pluginHost = binaries + "/rowcast-plugin-host"
            // ROWCAST_BENCH_HOST_LAUNCHER: a script that runs the host under callgrind too. The
            // hosts then start and answer many times slower: no deadline and no memory limit
            // (valgrind reserves more address space than the limit allows).
            if let launcher = ProcessInfo.processInfo.environment["ROWCAST_BENCH_HOST_LAUNCHER"], !launcher.isEmpty {
                configuration.pluginHost = launcher
                configuration.pluginTimeoutMilliseconds = 600_000
                configuration.pluginMemoryMegabytes = 0
            }
        } else {
            configuration.pluginIsolation = .inProcess
        }
        configuration.stateDirectory = state
        configuration.logLevel = .warning
        var environment = DaemonEnvironment()
        environment.announceReady = { line in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
        signal(SIGTERM) { _ in DaemonOnly.stop.requestStop() }
        do {
            var logger = Logger(label: "rowcastd")
            logger.logLevel = .warning
            let daemon = try Daemon(configuration: configuration, logger: logger, environment: environment)
            try daemon.start()
            try daemon.run(until: stop)
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("rowcast-bench --daemon-only: \(error)\n".utf8))
            exit(1)
        }
    }
}
