import Foundation
import RowCastTesting

/// A release `rowcast serve` started by the benchmark on a free loopback port, connected to a
/// ``BenchDaemon``; stopped with SIGTERM (then SIGKILL).
final class BenchGateway {
    let process = Process()
    /// The port it serves HTTP on.
    private(set) var port = 0
    private let output = Pipe()

    /// Starts `rowcast serve` for `daemon` with a connection buffer of `buffer` messages.
    init(daemon: BenchDaemon, buffer: Int) throws {
        process.executableURL = URL(fileURLWithPath: BenchDaemon.productsDirectory + "/rowcast")
        process.arguments = [
            "serve", "--http", "127.0.0.1:0", "--control", daemon.control, "--publish", daemon.publish,
            "--connection-buffer", "\(buffer)",
        ]
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let handle = output.fileHandleForReading
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, process.isRunning {
            let data = handle.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("rowcast serve ready ") }),
                let http = line.split(separator: " ").first(where: { $0.hasPrefix("http=") }),
                let port = Int(http.split(separator: ":").last ?? "")
            {
                self.port = port
                return
            }
        }
        stop()
        throw BenchFailure("rowcast serve did not become ready: \(text)")
    }

    /// Resident memory of the gateway now, in bytes (VmRSS).
    var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
        }
        return 0
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
