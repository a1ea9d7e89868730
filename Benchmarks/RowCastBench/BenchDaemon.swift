import Foundation
import RowCastTesting

/// A release `rowcastd` started by the benchmark on wildcard loopback ports, with the release
/// plugins and a fresh state directory (removed when stopped); stopped with SIGTERM (then
/// SIGKILL) when done.
final class BenchDaemon {
    let process = Process()
    /// The durability level of its store (`normal` or `full`).
    let durability: String
    /// Its state directory.
    let stateDirectory: String
    private(set) var ingest = ""
    private(set) var control = ""
    private(set) var publish = ""
    private let output = Pipe()

    /// The directory of this executable (where the release rowcastd and plugins are).
    static var productsDirectory: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    /// Whether `stop` removes the state directory (it does for one the daemon made itself).
    private let ownsState: Bool
    /// Seconds from launching the process to its ready line.
    private(set) var secondsToReady = 0.0

    /// How long `stop` waits for the process after SIGTERM before SIGKILL.
    private let stopTimeout: TimeInterval

    /// Starts rowcastd on `stateDirectory` (kept when stopped), or on a fresh one of its own,
    /// with the plugins of `pluginDirectory` (default: the release build's); run by `launcher`
    /// (e.g. valgrind and its options) when given, with its standard error to `standardError`,
    /// from `binaries` (a directory with rowcastd and the plugins) when given.
    init(
        durability: String = "normal", stateDirectory given: String? = nil, pluginDirectory: String? = nil,
        extraArguments: [String] = [],
        launcher: [String] = [], standardError: Pipe? = nil, binaries: String? = nil
    ) throws {
        let directory = binaries ?? Self.productsDirectory
        self.durability = durability
        ownsState = given == nil
        stateDirectory =
            given
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("rowcast-bench-\(UUID().uuidString)").path
        stopTimeout = launcher.isEmpty ? 10 : 120
        process.executableURL = URL(fileURLWithPath: launcher.first ?? directory + "/rowcastd")
        process.arguments =
            launcher.dropFirst() + (launcher.isEmpty ? [] : [directory + "/rowcastd"]) + [
                "--ingest", "tcp://127.0.0.1:*", "--control", "tcp://127.0.0.1:*", "--publish", "tcp://127.0.0.1:*",
                // The HTTP endpoint (and with it the metrics) is on unless ROWCAST_BENCH_HTTP="" turns it off.
                "--http", ProcessInfo.processInfo.environment["ROWCAST_BENCH_HTTP"] ?? "tcp://127.0.0.1:0",
                "--plugins", pluginDirectory ?? directory, "--log-level", "warning",
                "--state-dir", stateDirectory, "--durability", durability,
            ] + extraArguments
        process.standardOutput = output
        process.standardError = standardError ?? FileHandle.standardError
        // The previous workload's writes would otherwise be flushed during this one.
        sync()
        let launched = ContinuousClock.now
        try process.run()
        BenchChildren.add(process.processIdentifier)
        let handle = output.fileHandleForReading
        var text = ""
        let deadline = Date().addingTimeInterval(launcher.isEmpty ? 60 : 300)
        while Date() < deadline, process.isRunning {
            let data = handle.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let ready = ReadyLine(in: text) {
                (ingest, control, publish) = (ready.ingest, ready.control, ready.publish)
                secondsToReady = (ContinuousClock.now - launched).seconds
                return
            }
        }
        stop()
        throw BenchFailure("rowcastd did not become ready: \(text)")
    }

    /// Peak resident memory of the daemon so far, in bytes (VmHWM).
    var peakResidentBytes: Int { memoryField("VmHWM:") }

    /// Resident memory of the daemon now, in bytes (VmRSS).
    var residentBytes: Int { memoryField("VmRSS:") }

    private func memoryField(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
            return kilobytes * 1024
        }
        return 0
    }

    func stop() {
        defer { if ownsState { try? FileManager.default.removeItem(atPath: stateDirectory) } }
        defer { if process.processIdentifier != 0 { BenchChildren.remove(process.processIdentifier) } }
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(stopTimeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// A benchmark that could not run, and why.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
