import Foundation

/// Runs `rowcastd` with `arguments` until it exits (at most `timeout` seconds, then it is
/// killed); its exit status, standard error and standard output.
func runRowcastdToExit(
    _ arguments: [String], timeout: TimeInterval = 20
) throws -> (status: Int32, stderr: String, stdout: String) {
    let directory = try TemporaryDirectory("rowcastd-exit")
    let errURL = directory.url.appendingPathComponent("err")
    let outURL = directory.url.appendingPathComponent("out")
    FileManager.default.createFile(atPath: errURL.path, contents: nil)
    FileManager.default.createFile(atPath: outURL.path, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try BuildProducts.path("rowcastd"))
    process.arguments =
        [
            "--ingest", "tcp://127.0.0.1:*", "--control", "tcp://127.0.0.1:*", "--publish", "tcp://127.0.0.1:*",
            "--http", "tcp://127.0.0.1:0",
        ] + arguments
    let output = try FileHandle(forWritingTo: outURL)
    let error = try FileHandle(forWritingTo: errURL)
    // Closed here: the process object would keep them open for the rest of the test run.
    defer {
        try? output.close()
        try? error.close()
    }
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw TestFailure("rowcastd \(arguments) did not exit within \(timeout) s")
    }
    return (
        process.terminationStatus, (try? String(contentsOf: errURL, encoding: .utf8)) ?? "",
        (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
    )
}
