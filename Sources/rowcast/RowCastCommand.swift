import ArgumentParser
import RowCastJSON
import RowCastSupport

/// `rowcast`: publish to, follow and query a running rowcastd.
@main
struct RowCastCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rowcast",
        abstract: "Publish items to rowcastd, follow its feeds and query it.",
        discussion: """
            rowcast talks to a running rowcastd over ZeroMQ: feed operations go to its control \
            socket (acked) or its ingest socket (--no-ack), deltas and events come from its \
            publish socket. Errors print as one line on standard error, and the exit status is \
            non-zero when anything failed.

            Examples:
              rowcast publish --feed cars --type product --id 42 --field price=39999
              rowcast publish --feed cars --file items.ndjson
              rowcast subscribe --feed cars --replica --table
              rowcast watch --feed cars
              rowcast snapshot --feed cars
              rowcast status
              rowcast reload
              rowcast quarantine retry
              rowcast keygen cars-producer
              rowcast relay --upstream-publish tcp://core:7703 --upstream-control tcp://core:7702 \\
                --publish tcp://0.0.0.0:7703 --control tcp://0.0.0.0:7702
              rowcast plugin render librowcast-article.so --item item.json

            Endpoints and CURVE keys can also come from the environment: ROWCAST_CONTROL, \
            ROWCAST_PUBLISH, ROWCAST_INGEST, ROWCAST_SERVER_KEY and ROWCAST_KEY; a flag wins \
            over its variable. Each command takes only the endpoints it uses.

            Shell completions: rowcast --generate-completion-script bash (or zsh, fish). \
            make install puts them, and the man pages rowcast(1) and rowcastd(1), in place.
            """,
        version: RowCastVersion.current,
        subcommands: [
            PublishCommand.self, SubscribeCommand.self, WatchCommand.self, SnapshotCommand.self, StatusCommand.self,
            PluginsCommand.self, QuarantineCommand.self, SelectCommand.self, EventsCommand.self, LocateCommand.self,
            ReloadCommand.self, DropCommand.self, KeygenCommand.self,
            ServeCommand.self, PluginCommand.self, RelayCommand.self,
        ]
    )

    /// Parses and runs the command line, after catching a mistyped subcommand
    /// (``CommandSuggestion``), which the parser would report as an unknown option.
    static func main() {
        if let problem = CommandSuggestion.problem(in: Array(CommandLine.arguments.dropFirst()), root: Self.self) {
            exit(withError: ValidationError(problem))
        }
        main(nil)
    }
}
