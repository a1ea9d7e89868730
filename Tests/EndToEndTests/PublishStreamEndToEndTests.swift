import Foundation
import RowCastJSON
import Testing

/// `producer | rowcast publish --file -`: NDJSON on standard input is sent as it arrives, so
/// each request is acked (or queued, with --no-ack) while the producer still runs.
@Suite(.serialized)
struct PublishStreamEndToEndTests {
    /// `rowcast arguments` with a pipe on standard input; standard output and error in files.
    final class PipedCommand {
        let process = Process()
        let input = Pipe()
        let directory: TemporaryDirectory
        var stdout: String {
            (try? String(contentsOf: directory.url.appendingPathComponent("out"), encoding: .utf8)) ?? ""
        }
        var stderr: String {
            (try? String(contentsOf: directory.url.appendingPathComponent("err"), encoding: .utf8)) ?? ""
        }

        init(_ arguments: [String]) throws {
            directory = try TemporaryDirectory("rowcast-stream")
            for name in ["out", "err"] {
                FileManager.default.createFile(atPath: directory.url.appendingPathComponent(name).path, contents: nil)
            }
            process.executableURL = URL(fileURLWithPath: try BuildProducts.path("rowcast"))
            process.arguments = arguments
            process.standardInput = input
            process.standardOutput = try FileHandle(forWritingTo: directory.url.appendingPathComponent("out"))
            process.standardError = try FileHandle(forWritingTo: directory.url.appendingPathComponent("err"))
            try process.run()
        }

        func write(_ line: String) {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
        }

        /// Waits at most `timeout` seconds until standard output contains `text`.
        func waitForOutput(_ text: String, timeout: TimeInterval = 20) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if stdout.contains(text) { return true }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return false
        }

        deinit {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
    }

    @Test("each NDJSON line piped in is acked before the input ends", .timeLimit(.minutes(2)))
    func acksAsItArrives() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let command = try PipedCommand(["publish", "--feed", "s", "--file", "-", "--control", daemon.control])
        for index in 1...3 {
            command.write(DaemonEndToEndTests.product("\(index)").serializedString)
            #expect(
                command.waitForOutput("ok s seq=\(index)"),
                "ack \(index) did not come while the input was open:\n\(command.stdout)\(command.stderr)")
        }
        command.write("not json")
        #expect(command.waitForOutput("ok s seq=3"))
        try command.input.fileHandleForWriting.close()
        command.process.waitUntilExit()
        #expect(command.process.terminationStatus == 1, "an unreadable line fails the run")
        #expect(command.stderr.contains("stdin line 4"), "\(command.stderr)")
    }

    @Test("with --no-ack, each line piped in reaches the feed before the input ends", .timeLimit(.minutes(2)))
    func pushesAsItArrives() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        let command = try PipedCommand([
            "publish", "--feed", "s", "--file", "-", "--no-ack", "--ingest", daemon.ingest, "--control", daemon.control,
        ])
        command.write(DaemonEndToEndTests.product("1").serializedString)
        let deadline = Date().addingTimeInterval(20)
        var seq = 0
        while Date() < deadline, seq < 1 {
            seq = Int(try peer.request(["op": "snapshot", "feed": "s"])["seq"]?.numberValue ?? 0)
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(seq == 1, "the item did not arrive while the input was open")
        try command.input.fileHandleForWriting.close()
        command.process.waitUntilExit()
        #expect(command.process.terminationStatus == 0, "\(command.stderr)")
    }

    @Test("a JSON array or a pretty-printed object on standard input is still read whole")
    func wholeJSON() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let array =
            "[\n" + DaemonEndToEndTests.product("1").serializedString + ",\n"
            + DaemonEndToEndTests.product("2").serializedString + "\n]\n"
        let fromArray = try CommandRunner(
            ["publish", "--feed", "s", "--file", "-", "--control", daemon.control], input: array)
        #expect(fromArray.wait() == 0, "\(fromArray.stderr)")
        #expect(fromArray.stdout.split(separator: "\n").filter { $0.hasPrefix("ok s seq=") }.count == 2)
        // An object over several lines: its first line is not JSON by itself.
        let pretty = "{\n" + DaemonEndToEndTests.product("3").serializedString.dropFirst() + "\n"
        let fromObject = try CommandRunner(
            ["publish", "--feed", "s", "--file", "-", "--control", daemon.control], input: pretty)
        #expect(fromObject.wait() == 0, "\(fromObject.stderr)")
        #expect(fromObject.stdout.hasPrefix("ok s seq="), "\(fromObject.stdout)")
    }
}

extension JSONValue {
    /// The value as compact JSON text.
    fileprivate var serializedString: String { String(decoding: serialized(), as: UTF8.self) }
}
