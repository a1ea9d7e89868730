import Foundation

/// A running `rowcast relay`, started (under `launcher`, such as `ip netns exec NS`, when one is
/// given) and waited for until it prints its ready line, with bounded waits throughout.
final class RelayProcess {
    /// The command, its output collected in files.
    let command: CommandRunner
    /// The publish endpoint subscribers connect to, as the ready line gives it.
    let publish: String
    /// The control endpoint replicas send requests to, as the ready line gives it.
    let control: String

    /// Starts a relay of rowcastd's `upstream` publish and control endpoints, bound at
    /// `publish` and `control` (wildcard ports by default).
    init(
        upstreamPublish: String, upstreamControl: String, publish: String = "tcp://127.0.0.1:*",
        control: String = "tcp://127.0.0.1:*",
        extra: [String] = [], launcher: [String] = [], timeout: TimeInterval = 20
    ) throws {
        command = try CommandRunner(
            [
                "relay", "--upstream-publish", upstreamPublish, "--upstream-control", upstreamControl, "--publish",
                publish, "--control", control,
            ] + extra,
            launcher: launcher)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let line = command.stdout.split(separator: "\n").first(where: { $0.hasPrefix("rowcast relay ready ") }) {
                let fields = Dictionary(
                    line.split(separator: " ").dropFirst(3).compactMap { field -> (String, String)? in
                        guard let equals = field.firstIndex(of: "=") else { return nil }
                        return (String(field[..<equals]), String(field[field.index(after: equals)...]))
                    }, uniquingKeysWith: { $1 })
                self.publish = fields["publish"] ?? ""
                self.control = fields["control"] ?? ""
                return
            }
            if !command.process.isRunning || Date() > deadline {
                command.process.isRunning ? command.process.terminate() : ()
                throw TestFailure(
                    "rowcast relay did not start: status \(command.process.isRunning ? -1 : command.process.terminationStatus), stderr:\n\(command.stderr)"
                )
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Sends SIGTERM and waits at most `timeout` seconds for the exit (then kills it); the status.
    @discardableResult
    func stop(timeout: TimeInterval = 10) -> Int32 {
        if command.process.isRunning { kill(command.process.processIdentifier, SIGTERM) }
        return command.wait(timeout: timeout)
    }

    deinit {
        if command.process.isRunning {
            kill(command.process.processIdentifier, SIGKILL)
            command.process.waitUntilExit()
        }
    }
}
