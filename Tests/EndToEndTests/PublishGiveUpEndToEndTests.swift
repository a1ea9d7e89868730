import Foundation
import RowCastJSON
import Testing

/// `rowcast publish` when the daemon is not there or stops answering: it gives up at once, or
/// within about one `--timeout` whatever the number of requests, and prints every ack as it
/// arrives.
@Suite(.serialized)
struct PublishGiveUpEndToEndTests {
    /// `count` NDJSON product items with ids `prefix1`, `prefix2`, ...
    static func requests(_ count: Int, prefix: String = "p") -> String {
        (1...count).map { String(decoding: DaemonEndToEndTests.product("\(prefix)\($0)").serialized(), as: UTF8.self) }
            .joined(separator: "\n") + "\n"
    }

    @Test(
        "300 requests with no daemon listening: exit 1 at once (it used to take one timeout per request), one not_listening line, one not_sent line counting the rest",
        .timeLimit(.minutes(2)))
    func noDaemonGivesUpOnce() throws {
        let port = try FreePorts.take(1)[0]
        let timeout = 3.0
        let started = Date()
        let run = try CommandRunner(
            [
                "publish", "--control", "tcp://127.0.0.1:\(port)", "--feed", "cars", "--file", "-", "--timeout",
                String(timeout),
            ], input: Self.requests(300))
        // The bound guards against the old behaviour (157 s for 300 requests with --timeout 4),
        // not a tight figure: a refused connection is reported well within one timeout.
        let status = run.wait(timeout: 3 * timeout)
        let elapsed = Date().timeIntervalSince(started)
        #expect(status == 1, "status \(status) after \(elapsed) s; stderr:\n\(run.stderr)")
        #expect(elapsed < timeout, "reporting a daemon that is not there took \(elapsed) s")
        #expect(run.stdout.isEmpty)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 2, "stderr:\n\(run.stderr)")
        #expect(
            lines.first?.hasPrefix("error: not_listening: nothing is listening at tcp://127.0.0.1:\(port)") == true,
            "stderr:\n\(run.stderr)")
        #expect(lines.last?.hasPrefix("error: not_sent: 299 request(s) not sent") == true, "stderr:\n\(run.stderr)")
        print(
            "rowcast publish of 300 requests with no daemon, --timeout \(timeout): exit \(status) after \(String(format: "%.1f", elapsed)) s"
        )
    }

    @Test(
        "acks are printed as they arrive: with the daemon's loop stuck after three requests, their three lines are out while rowcast still waits",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)))
    func acksStreamWhileWaiting() throws {
        let plugins = try DaemonProcess.pluginDirectory(["librowcast-product.so"])
        try FaultPlugin.compile(to: plugins.url.appendingPathComponent(FaultPlugin.fileName).path)
        let daemon = try DaemonProcess(
            pluginDirectory: plugins, extraArguments: ["--plugin-isolation", "in_process"],
            launcher: WatchdogEndToEndTests.noCoreDumps)
        defer { daemon.stop() }
        // Three products, then an item that hangs the loop, then more products.
        let input =
            Self.requests(3) + "{\"id\":\"hang\",\"type\":\"\(FaultPlugin.itemType)\"}\n"
            + Self.requests(20, prefix: "q")
        let run = try CommandRunner(
            [
                "publish", "--control", daemon.control, "--feed", "cars", "--file", "-", "--window", "1", "--timeout",
                "10",
            ], input: input)
        defer { if run.process.isRunning { run.process.terminate() } }
        let streamed = eventually(timeout: 20) { run.stdout.split(separator: "\n").count >= 3 }
        #expect(streamed, "stdout:\n\(run.stdout)\nstderr:\n\(run.stderr)")
        #expect(run.process.isRunning, "rowcast ended before the daemon answered the fourth request")
        #expect(
            run.stdout.split(separator: "\n").map { $0.hasPrefix("ok cars seq=") } == [true, true, true],
            "stdout:\n\(run.stdout)")
        // The daemon dies (the watchdog's SIGABRT): rowcast gives up on the fourth request and
        // does not send the rest.
        daemon.signal(SIGABRT)
        #expect(daemon.waitForExit(timeout: 10) != nil)
        #expect(run.wait(timeout: 30) == 1, "stderr:\n\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 3)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 2, "stderr:\n\(run.stderr)")
        #expect(lines.first?.hasPrefix("error: timeout: no answer to upsert (req 4 ") == true, "stderr:\n\(run.stderr)")
        #expect(lines.last?.hasPrefix("error: not_sent: 20 request(s) not sent") == true, "stderr:\n\(run.stderr)")
    }
}
