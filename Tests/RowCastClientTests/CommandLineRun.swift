import Foundation
import Testing

/// One run of the built `rowcast` executable, its output collected as it comes.
final class CommandLineRun: @unchecked Sendable {
    // `@unchecked Sendable`: `stdout` and `stderr` are `Shared` (locked); the process is only
    // started and waited for by the test.
    let process = Process()
    let stdout = Shared("")
    let stderr = Shared("")
    private let done = DispatchGroup()

    /// `.build/.../rowcast`, beside the test bundle (built by `swift build` or `swift test`).
    static func executable() throws -> URL {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        while url.path != "/" {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("rowcast")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue
            {
                return candidate
            }
        }
        throw FakeDaemonError(
            "the rowcast executable was not found beside the tests; run `swift build --product rowcast` first")
    }

    /// Starts `rowcast arguments`, with `input` on standard input.
    init(_ arguments: [String], input: String = "") throws {
        process.executableURL = try Self.executable()
        process.arguments = arguments
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        for (pipe, target) in [(outPipe, stdout), (errPipe, stderr)] {
            done.enter()
            let handle = pipe.fileHandleForReading
            Thread { [done] in
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    target.value += String(decoding: data, as: UTF8.self)
                }
                done.leave()
            }.start()
        }
        try process.run()
        inPipe.fileHandleForWriting.write(Data(input.utf8))
        try inPipe.fileHandleForWriting.close()
    }

    /// Waits for the process to end (killing it after 30 s); returns its exit status.
    @discardableResult
    func wait() -> Int32 {
        let end = ContinuousClock.now.advanced(by: .seconds(30))
        while process.isRunning, ContinuousClock.now < end { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning {
            process.terminate()
            Issue.record("rowcast \(process.arguments ?? []) did not finish; stderr: \(stderr.value)")
        }
        process.waitUntilExit()
        _ = done.wait(timeout: .now() + 10)
        return process.terminationStatus
    }

    /// Runs `rowcast arguments` to the end.
    static func run(_ arguments: [String], input: String = "") throws -> (status: Int32, stdout: String, stderr: String)
    {
        let run = try CommandLineRun(arguments, input: input)
        let status = run.wait()
        return (status, run.stdout.value, run.stderr.value)
    }
}
