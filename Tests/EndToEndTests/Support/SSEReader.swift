import Foundation

/// A Server-Sent Events stream read by curl on a thread of its own, as it arrives.
final class SSEReader {
    private let process = Process()
    private let output = LockedBuffer()

    /// Starts reading `url` (at most 60 s).
    init(url: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sN", "--max-time", "60", url]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let buffer = output
        PipeReader.start(pipe.fileHandleForReading, name: "curl-stdout") { buffer.append($0) }
    }

    /// What arrived so far.
    var text: String { output.text }

    /// Ends curl (with SIGKILL: a SIGTERM the test process ignores is ignored by its children).
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
