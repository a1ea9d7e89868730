import Foundation
import RowCastTesting
import Testing

/// `rowcast watch` on a real terminal: tmux runs it in a pane, `capture-pane` reads the screen.
@Suite(.serialized)
struct WatchEndToEndTests {
    /// A product with the fields the product plugin needs.
    static func product(_ id: String, _ name: String, section: String? = nil) -> [String] {
        [
            "publish", "--feed", "cars", "--type", "product", "--id", id, "--field", "name=\(name)",
            "--field", "operatedBy=Tesla", "--field", "price=39999", "--field", "image=https://img/\(id).png",
        ]
            + (section.map { ["--section", $0] } ?? [])
    }

    /// Publishes with the acked CLI and expects success.
    static func publish(_ arguments: [String], _ daemon: DaemonProcess) throws {
        let run = try CommandRunner.run(arguments + ["--control", daemon.control])
        #expect(run.process.terminationStatus == 0, "\(arguments): \(run.stderr)")
    }

    /// A shell command line that saves the terminal settings, runs `rowcast watch` on the
    /// daemon's feed "cars", saves its exit status and the settings again.
    static func watchCommand(_ daemon: DaemonProcess, in directory: TemporaryDirectory) throws -> String {
        let rowcast = try BuildProducts.path("rowcast")
        let dir = directory.path
        return "stty -g > '\(dir)/before'; '\(rowcast)' watch --feed cars --control '\(daemon.control)' "
            + "--publish '\(daemon.publish)' 2> '\(dir)/err'; echo $? > '\(dir)/status'; stty -g > '\(dir)/after'"
    }

    /// The terminal settings saved before and after the watch, its exit status and what it
    /// wrote on standard error.
    static func saved(
        _ directory: TemporaryDirectory
    ) -> (before: String, after: String, status: String, stderr: String) {
        func read(_ name: String) -> String {
            (try? String(contentsOfFile: "\(directory.path)/\(name)", encoding: .utf8)) ?? ""
        }
        return (
            read("before"), read("after"), read("status").trimmingCharacters(in: .whitespacesAndNewlines), read("err")
        )
    }

    @Test("rows appear, an update shows, a resize changes the layout, / finds a row, q restores the terminal")
    func watchUnderTmux() throws {
        let daemon = try DaemonProcess()
        try Self.publish(Self.product("42", "Model 3"), daemon)
        try Self.publish(Self.product("43", "Model S", section: "used"), daemon)
        try Self.publish(Self.product("44", "Leaf"), daemon)
        let directory = try TemporaryDirectory("rowcast-watch")
        let tmux = try TmuxSession(command: try Self.watchCommand(daemon, in: directory), columns: 100, rows: 30)
        defer { tmux.kill() }

        var screen = try tmux.waitForScreen("the three rows") { screen in
            screen.joined(separator: "\n").contains("Model S") && screen.contains { $0.contains("seq 3") }
        }
        #expect(screen.count == 30)
        #expect(
            screen[0].contains("ID") && screen[0].contains("CELL") && screen[0].contains("HEIGHT")
                && screen[0].contains("CONTENT"))
        #expect(screen.contains { $0.hasPrefix("section used (1 row)") })
        #expect(
            screen.contains {
                $0.contains("42") && $0.contains("ProductImageCell") && $0.contains("120") && $0.contains("Model 3")
            })
        #expect(try tmux.format("alternate_on") == "1")

        try Self.publish(Self.product("42", "Model 3 Performance"), daemon)
        screen = try tmux.waitForScreen("the updated row") { screen in
            screen.contains { $0.contains("Model 3 Performance") } && screen.contains { $0.contains("seq 4") }
        }

        try tmux.resize(columns: 50, rows: 20)
        screen = try tmux.waitForScreen("the layout of a 50 × 20 terminal") { screen in
            screen.count == 20 && screen[0].contains("CELL") && !screen[0].contains("HEIGHT")
                && screen.contains { $0.contains("seq 4") }
        }
        #expect(screen.allSatisfy { $0.count <= 50 })
        #expect(screen.contains { $0.contains("Model 3 Perf") })

        try tmux.send("/", "4", "3", "Enter")
        try tmux.waitForScreen("the found row's message") { screen in
            screen.contains { $0.hasPrefix("row 43 is row 1 of section used") }
        }

        // A lone Escape (no sequence follows) closes the prompt.
        try tmux.send("/", "z")
        try tmux.waitForScreen("the find prompt") { screen in screen.last?.hasPrefix("/z_") == true }
        try tmux.send("Escape")
        try tmux.waitForScreen("the keys after Escape") { screen in screen.last?.hasPrefix("q quit") == true }

        try tmux.send("q")
        try tmux.waitForExit()
        #expect(try tmux.format("alternate_on") == "0")
        let files = Self.saved(directory)
        #expect(files.status == "0")
        #expect(!files.before.isEmpty)
        #expect(files.after == files.before, "the terminal settings were not restored")
        #expect(files.stderr.isEmpty, "\(files.stderr)")
    }

    @Test("SIGTERM ends the watch with status 143 and the terminal restored")
    func terminated() throws {
        let daemon = try DaemonProcess()
        try Self.publish(Self.product("42", "Model 3"), daemon)
        let directory = try TemporaryDirectory("rowcast-watch")
        let tmux = try TmuxSession(command: try Self.watchCommand(daemon, in: directory), columns: 80, rows: 24)
        defer { tmux.kill() }
        try tmux.waitForScreen("the row") { screen in screen.contains { $0.contains("Model 3") } }

        // The pane runs the shell; rowcast is its child.
        let shell = try tmux.format("pane_pid")
        let children = try ProgramRun.run("/bin/ps", ["-o", "pid=", "--ppid", shell]).output
        let pid = try #require(
            children.split(separator: "\n").compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }.first)
        #expect(kill(pid, SIGTERM) == 0)

        try tmux.waitForExit()
        #expect(try tmux.format("alternate_on") == "0")
        let files = Self.saved(directory)
        #expect(files.status == "143")
        #expect(files.after == files.before, "the terminal settings were not restored")
    }

    @Test("without a terminal it prints the feed once as a table")
    func once() throws {
        let daemon = try DaemonProcess()
        try Self.publish(Self.product("42", "Model 3"), daemon)
        let run = try CommandRunner.run([
            "watch", "--feed", "cars", "--control", daemon.control, "--publish", daemon.publish,
        ])
        #expect(run.process.terminationStatus == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("feed cars  seq 1  epoch ") == true)
        #expect(lines.contains { $0.contains("42") && $0.contains("Model 3") })
    }
}
