import Foundation

/// Runs a program to completion for a test (a compiler, `cp`, `systemd-analyze`, `make`): its
/// exit status and everything it wrote to standard output and error.
public enum ProgramRun {
    /// Runs `program` with `arguments` and waits for it; after `timeout` seconds it is killed
    /// (status -1, with a note appended to the output).
    public static func run(
        _ program: String, _ arguments: [String], timeout: TimeInterval = 600
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // Read on another thread, so that a full pipe cannot stop the program.
        let collected = CollectedOutput()
        let reader = Thread { collected.finish(pipe.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return (-1, collected.wait() + "\n(killed after \(Int(timeout)) s)")
        }
        process.waitUntilExit()
        return (process.terminationStatus, collected.wait())
    }
}

/// The output a reader thread collects, handed over once it is complete.
private final class CollectedOutput: @unchecked Sendable {
    // `@unchecked Sendable`: `data` is written once before `done` is signalled and read after.
    /// The output, complete once `done` is signalled.
    private var data = Data()
    /// Signalled when `data` is complete.
    private let done = DispatchSemaphore(value: 0)

    /// Keeps everything the program wrote, once it closed its output.
    func finish(_ data: Data) {
        self.data = data
        done.signal()
    }

    /// The output, once the program closed it (at most 10 s after it ended).
    func wait() -> String {
        guard done.wait(timeout: .now() + 10) == .success else {
            return "(the output was still open 10 s after the program ended)"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
