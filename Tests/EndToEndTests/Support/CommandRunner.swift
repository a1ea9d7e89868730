import Foundation

/// Runs the built `rowcast` CLI, waiting a bounded time; output is collected through files so
/// no pipe can fill up and block the child.
final class CommandRunner {
    let process = Process()
    private let directory: TemporaryDirectory
    private let outURL: URL
    private let errURL: URL
    /// The child's standard input, output and error, closed here once it exited: the process
    /// object keeps them open otherwise, and a whole test run would hold thousands.
    private var handles: [FileHandle]

    /// Starts `rowcast arguments` with `input` on standard input, under `launcher` (a program
    /// and its arguments, such as setpriv) when one is given.
    init(_ arguments: [String], input: String = "", launcher: [String] = [], environment: [String: String] = [:]) throws
    {
        directory = try TemporaryDirectory("rowcast-cli")
        outURL = directory.url.appendingPathComponent("out")
        errURL = directory.url.appendingPathComponent("err")
        let inURL = directory.url.appendingPathComponent("in")
        try Data(input.utf8).write(to: inURL)
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let executable = try BuildProducts.path("rowcast")
        process.executableURL = URL(fileURLWithPath: launcher.first ?? executable)
        process.arguments = launcher.dropFirst() + (launcher.isEmpty ? [] : [executable]) + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        handles = [
            try FileHandle(forReadingFrom: inURL), try FileHandle(forWritingTo: outURL),
            try FileHandle(forWritingTo: errURL),
        ]
        process.standardInput = handles[0]
        process.standardOutput = handles[1]
        process.standardError = handles[2]
        do {
            try process.run()
        } catch {
            closeHandles()
            throw error
        }
    }

    private func closeHandles() {
        for handle in handles { try? handle.close() }
        handles = []
    }

    var stdout: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }

    /// Waits at most `timeout` seconds for the command to finish (then kills it); its status.
    @discardableResult
    func wait(timeout: TimeInterval = 30) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            closeHandles()
            return -1
        }
        closeHandles()
        return process.terminationStatus
    }

    /// Waits at most `timeout` seconds until standard error contains `text`.
    func waitForStandardError(containing text: String, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if stderr.contains(text) { return true }
            if !process.isRunning { return stderr.contains(text) }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// Runs a command to completion.
    static func run(_ arguments: [String], input: String = "") throws -> CommandRunner {
        let runner = try CommandRunner(arguments, input: input)
        runner.wait()
        return runner
    }

    deinit {
        if process.isRunning { process.terminate() }
        // The child has its own copies: closing these costs it nothing.
        closeHandles()
    }
}
