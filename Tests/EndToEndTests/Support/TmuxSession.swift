import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A detached tmux session on a private server (`tmux -L <unique name>`) running one shell
/// command in a pane of a given size: a real terminal for full-screen programs, read back
/// with `capture-pane`. `kill()` (or deinit) ends the server and everything in it.
final class TmuxSession {
    /// The private server's socket name.
    let server = "rowcast-test-\(UUID().uuidString.prefix(8))"
    /// The session's name.
    let name = "watch"
    /// Where each tmux command's output goes.
    private let directory: TemporaryDirectory

    /// Starts `command` (a shell command line) in a new session of `columns` × `rows`; the
    /// pane stays after the command exits, so its screen and status can still be read.
    init(command: String, columns: Int, rows: Int) throws {
        directory = try TemporaryDirectory("rowcast-tmux")
        try tmux(["-f", "/dev/null", "new-session", "-d", "-s", name, "-x", "\(columns)", "-y", "\(rows)", command])
        try tmux(["set-option", "-t", name, "remain-on-exit", "on"])
    }

    /// Runs `tmux -L server arguments` (at most 10 s); its output, or an error with what it said.
    ///
    /// Spawned and waited for directly: Foundation's `Process` reports the client running
    /// until the server it forks ends; the output goes through a file, not a pipe, which the
    /// server would keep open.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let output = directory.url.appendingPathComponent("tmux-output").path
        let argv = (["tmux", "-L", server] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The server must not inherit this process's descriptors (pipes of other children
        // would stay open) nor its blocked signals (the test runner blocks SIGTERM, which
        // `kill-server` sends the server).
        let inherited = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap {
            Int32($0)
        }
        for descriptor in inherited where descriptor > 2 { posix_spawn_file_actions_addclose(&actions, descriptor) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, "tmux", &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw TestFailure("cannot run tmux (`make test` installs it): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(10)
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard Date() < deadline else {
                _ = Glibc.kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw TestFailure("tmux \(arguments.joined(separator: " ")) did not finish within 10 s")
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        // Exited normally with status 0: the low 7 bits (the signal) and the exit code are 0.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw TestFailure("tmux \(arguments.joined(separator: " ")) failed (wait status \(status)): \(text)")
        }
        return text
    }

    /// The pane's visible lines, as text (trailing spaces cut by tmux).
    func screen() throws -> [String] {
        var lines = try tmux(["capture-pane", "-p", "-t", name]).split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
        if lines.last == "" { lines.removeLast() }  // the newline after the last line
        return lines
    }

    /// A pane format variable, such as `alternate_on`, `pane_dead` or `pane_pid`.
    func format(_ variable: String) throws -> String {
        try tmux(["display-message", "-p", "-t", name, "#{\(variable)}"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
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

    /// Waits at most `timeout` seconds for the pane's command to exit.
    func waitForExit(timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try format("pane_dead") == "1" { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure(
            "tmux: the pane's command did not exit within \(timeout) s; the screen was:\n\((try? screen())?.joined(separator: "\n") ?? "?")"
        )
    }

    /// Types `keys` (tmux key names, such as `q`, `Down`, `Enter`).
    func send(_ keys: String...) throws {
        try tmux(["send-keys", "-t", name] + keys)
    }

    /// Resizes the window to `columns` × `rows`, as a user resizing the terminal would.
    func resize(columns: Int, rows: Int) throws {
        try tmux(["resize-window", "-t", name, "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// Ends the pane's processes (SIGKILL to the pane's process group: the shell and what it
    /// runs) and the tmux server, and removes its socket; idempotent.
    func kill() {
        if let pid = try? format("pane_pid"), let group = Int32(pid), group > 1, (try? format("pane_dead")) == "0" {
            _ = Glibc.kill(-group, SIGKILL)
        }
        let socket = try? format("socket_path")
        _ = try? tmux(["kill-server"])
        if let socket, !socket.isEmpty { unlink(socket) }  // tmux leaves it behind
    }

    deinit { kill() }
}
