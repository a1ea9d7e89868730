import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastTesting

/// A real `rowcastd` process on wildcard loopback ports (or given ones), with its own plugin
/// and state directories unless it is handed some (to restart on the same state).
/// Start waits a bounded time for the ready line; `stop()` (or deinit) always ends the process.
final class DaemonProcess {
    let process = Process()
    let pluginDirectory: TemporaryDirectory
    let stateDirectory: TemporaryDirectory
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let output = LockedBuffer()
    private(set) var ingest = ""
    private(set) var control = ""
    private(set) var publish = ""
    /// The HTTP endpoint from the ready line (`tcp://127.0.0.1:PORT`), "" when it is off.
    private(set) var http = ""

    /// Starts rowcastd with the given plugin files copied into its plugin directory.
    /// - Parameters:
    ///   - plugins: library file names from the build directory (default: both real plugins).
    ///   - pluginDirectory: a directory that already holds the plugins (a restart keeps
    ///     using the same files, so feeds keep their epochs).
    ///   - stateDirectory: the state to start from (a restart), or a new empty one.
    ///   - endpoints: (ingest, control, publish) to bind instead of wildcard ports.
    ///   - extraArguments: more options; they win over the defaults above them.
    ///   - fileSizeLimitKiB: run under `ulimit -f` (writes past it fail, like a full disk).
    ///   - environment: variables added to this process's environment (NOTIFY_SOCKET, say).
    ///   - waitForReady: wait (at most `timeout`) for the ready line, or return at once.
    ///   - launcher: a program (and its arguments) that runs rowcastd, e.g. under a sandbox.
    init(
        plugins: [String] = ["librowcast-product.so", "librowcast-advertising.so"],
        pluginDirectory: TemporaryDirectory? = nil,
        stateDirectory: TemporaryDirectory? = nil, endpoints: (String, String, String)? = nil,
        extraArguments: [String] = [], fileSizeLimitKiB: Int? = nil, environment: [String: String] = [:],
        waitForReady: Bool = true, launcher: [String] = [], timeout: TimeInterval = 20
    ) throws {
        if let pluginDirectory {
            self.pluginDirectory = pluginDirectory
        } else {
            self.pluginDirectory = try Self.pluginDirectory(plugins)
        }
        self.stateDirectory = try stateDirectory ?? TemporaryDirectory("rowcast-state")
        let endpoints = endpoints ?? ("tcp://127.0.0.1:*", "tcp://127.0.0.1:*", "tcp://127.0.0.1:*")
        let executable = try BuildProducts.path("rowcastd")
        let arguments =
            [
                "--ingest", endpoints.0, "--control", endpoints.1, "--publish", endpoints.2,
                "--plugins", self.pluginDirectory.path, "--state-dir", self.stateDirectory.path, "--heartbeat-ms",
                "200",
                // A free port: daemons run side by side (the default, 7780, is for one daemon per host).
                "--http", "tcp://127.0.0.1:0",
            ] + sanitizerArguments + extraArguments
        if let fileSizeLimitKiB {
            // A file size limit with SIGXFSZ ignored: writes past it fail (EFBIG), like a full disk.
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments =
                ["-c", "trap '' XFSZ; ulimit -f \(fileSizeLimitKiB); exec \"$0\" \"$@\"", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: launcher.first ?? executable)
            process.arguments = launcher.dropFirst() + (launcher.isEmpty ? [] : [executable]) + arguments
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        let buffer = output
        try process.run()
        PipeReader.start(stdoutPipe.fileHandleForReading, name: "rowcastd-stdout") { buffer.append($0) }
        PipeReader.start(stderrPipe.fileHandleForReading, name: "rowcastd-stderr") { buffer.appendLog($0) }
        if waitForReady { try waitForReadyLine(timeout: timeout) }
    }

    /// Waits at most `timeout` for the ready line and reads the endpoints from it.
    func waitForReadyLine(timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let ready = ReadyLine(in: output.text) {
                (ingest, control, publish, http) = (ready.ingest, ready.control, ready.publish, ready.http)
                return
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        stop()
        throw TestFailure("rowcastd did not print its ready line within \(timeout) s; log:\n\(output.log)")
    }

    /// A new directory holding copies of the built `plugins`.
    static func pluginDirectory(
        _ plugins: [String] = ["librowcast-product.so", "librowcast-advertising.so"]
    ) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory("rowcast-plugins")
        for plugin in plugins {
            try FileManager.default.copyItem(
                atPath: try BuildProducts.path(plugin), toPath: directory.url.appendingPathComponent(plugin).path)
        }
        return directory
    }

    /// Ends the process at once with SIGKILL (no clean shutdown) and waits for it.
    func crash() {
        signal(SIGKILL)
        _ = waitForExit(timeout: 10)
    }

    /// What rowcastd logged on standard error so far.
    var log: String { output.log }

    /// What rowcastd printed on standard output so far (the ready line).
    var standardOutput: String { output.text }

    /// Sends a signal to the process.
    func signal(_ number: Int32) { if process.isRunning { kill(process.processIdentifier, number) } }

    /// Waits at most `timeout` for the process to exit; its exit status, or nil if still running.
    func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// SIGTERM, then SIGKILL after 5 s; idempotent.
    func stop() {
        if process.isRunning {
            signal(SIGTERM)
            if waitForExit(timeout: 5) == nil {
                signal(SIGKILL)
                _ = waitForExit(timeout: 5)
            }
        }
    }

    deinit { stop() }
}

/// Output collected from a child process's pipes on another thread.
final class LockedBuffer: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var stdoutText = ""
    private var stderrText = ""

    func append(_ data: Data) { lock.withLock { stdoutText += String(decoding: data, as: UTF8.self) } }
    func appendLog(_ data: Data) { lock.withLock { stderrText += String(decoding: data, as: UTF8.self) } }
    var text: String { lock.withLock { stdoutText } }
    var log: String { lock.withLock { stderrText } }
}

/// Under a sanitizer a plugin host renders several times slower: a 1 s callback deadline would
/// turn large items into `plugin_timeout` (tests that time out on purpose set their own).
private let sanitizerArguments: [String] = SanitizerRuntime.isActive ? ["--plugin-timeout-ms", "10000"] : []
