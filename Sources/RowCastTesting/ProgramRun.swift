import Foundation

/// Runs a program to completion for a test (a compiler, `cp`, `systemd-analyze`): its exit
/// status and everything it wrote to standard output and error.
public enum ProgramRun {
    /// Runs `program` with `arguments` and waits for it.
    public static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
