import ArgumentParser
import Glibc
import RowCastClient
import RowCastWatch

/// `rowcast watch`: a full-screen, live view of one feed, or one table without a terminal.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Show a feed full screen, live: sections, rows, and what just changed.",
        discussion: """
            Keeps a replica of --feed (snapshot, then deltas; PROTOCOL.md "Keeping a replica") \
            and draws it on the terminal's alternate screen: each section's header line, then \
            one line per row (id, cell, height, content), and a status line with the seq, \
            epoch, size and deltas per second. Rows that just changed are highlighted for a \
            moment: + inserted (green), * reconfigured or reloaded (yellow), ~ moved (cyan). \
            Only the visible lines are drawn, at most 30 times a second, however large the \
            feed and however fast it changes.

            Keys: Up/Down (or j/k) scroll a line, PgUp/PgDn (or space) a screen, Home/End \
            (or g/G) go to the top/bottom, / then a row id and Enter finds that row, Esc \
            cancels, q or Ctrl-C quits. The terminal is restored on quitting, and on SIGINT, \
            SIGTERM and SIGHUP; the view follows the terminal's size as it changes.

            With --once, or when standard input or output is not a terminal, it prints the \
            feed once as a table (the format of `rowcast snapshot`) and exits.

            Examples:
              rowcast watch --feed cars
              rowcast watch --feed cars --once
            """
    )

    @OptionGroup var publishEndpoint: PublishEndpointOption
    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The feed to show.", valueName: "feed"))
    var feed: String

    @Flag(help: "Print the feed once as a table and exit, even on a terminal.")
    var once = false

    func run() throws {
        var signal: Int32?
        try reportingErrors {
            let session = try ReplicaSession(
                feed: feed, controlEndpoint: controlEndpoint.control, publishEndpoint: publishEndpoint.publish,
                timeout: connection.timeoutDuration, curve: try connection.curve(), reportsRefusal: true)
            defer {
                session.subscriber.close()
                session.control.close()
            }
            guard !once, Terminal.isTerminal(STDIN_FILENO), Terminal.isTerminal(STDOUT_FILENO) else {
                SnapshotTable().render(try session.start()).forEach(Output.line)
                return
            }
            // No copy of the replica is kept here: the session then changes it in place.
            try session.start()
            signal = try showFullScreen(session)
        }
        // Ended by a signal: exit as the shell expects (128 + its number), the screen restored.
        if let signal { throw ExitCode(128 + signal) }
    }

    /// Runs the full-screen view until it quits; the signal that ended it, if one did.
    func showFullScreen(_ session: ReplicaSession) throws(RowCastClientError) -> Int32? {
        let terminal = Terminal()
        let signals: TerminalSignals
        do {
            signals = try TerminalSignals()
            try terminal.enterFullScreen()
        } catch {
            throw RowCastClientError(
                code: "terminal_error", message: "\(error); use --once to print the feed as a table")
        }
        defer {
            terminal.restore()
            signals.stop()
        }
        return try WatchLoop(session: session, terminal: terminal, signals: signals).run()
    }
}
