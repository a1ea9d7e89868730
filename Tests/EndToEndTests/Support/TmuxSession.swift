import Foundation
import RowCastTesting

/// A detached tmux session on a private server (`tmux -L <unique name>`) running one shell
/// command in a pane of a given size: a real terminal for full-screen programs, read back
/// with `capture-pane`. `kill()` (or deinit) ends the server and everything in it.
final class TmuxSession {
    /// The private server's socket name.
    let server = "rowcast-test-\(UUID().uuidString.prefix(8))"
    /// The session's name.
    let name = "watch"

    /// Starts `command` (a shell command line) in a new session of `columns` × `rows`; the
    /// pane stays after the command exits, so its screen and status can still be read.
    init(command: String, columns: Int, rows: Int) throws {
        try tmux(["-f", "/dev/null", "new-session", "-d", "-s", name, "-x", "\(columns)", "-y", "\(rows)", command])
        try tmux(["set-option", "-t", name, "remain-on-exit", "on"])
    }

    /// Runs `tmux -L server arguments`; its output, or an error with what it said.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let run: (status: Int32, output: String)
        do {
            run = try ProgramRun.run("/usr/bin/env", ["tmux", "-L", server] + arguments)
        } catch {
            throw TestFailure("cannot run tmux (`make test` installs it): \(error)")
        }
        guard run.status == 0 else { throw TestFailure("tmux \(arguments.joined(separator: " ")) failed (\(run.status)): \(run.output)") }
        return run.output
    }

    /// The pane's visible lines, as text (trailing spaces cut by tmux).
    func screen() throws -> [String] {
        try tmux(["capture-pane", "-p", "-t", name]).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// A pane format variable, such as `alternate_on`, `pane_dead` or `pane_pid`.
    func format(_ variable: String) throws -> String {
        try tmux(["display-message", "-p", "-t", name, "#{\(variable)}"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits at most `timeout` seconds for the screen to satisfy `condition`; the screen
    /// then, or an error showing the last screen seen.
    @discardableResult
    func waitForScreen(_ what: String, timeout: TimeInterval = 20, _ condition: ([String]) -> Bool) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String] = []
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure("tmux: waited \(timeout) s for \(what); the screen was:\n\(last.joined(separator: "\n"))")
    }

    /// Types `keys` (tmux key names, such as `q`, `Down`, `Enter`).
    func send(_ keys: String...) throws {
        try tmux(["send-keys", "-t", name] + keys)
    }

    /// Resizes the window to `columns` × `rows`, as a user resizing the terminal would.
    func resize(columns: Int, rows: Int) throws {
        try tmux(["resize-window", "-t", name, "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// Ends the tmux server and every process in it; idempotent.
    func kill() {
        _ = try? ProgramRun.run("/usr/bin/env", ["tmux", "-L", server, "kill-server"])
    }

    deinit { kill() }
}
