import ArgumentParser
import RowCastClient

/// `rowcast status`: the daemon's health and feeds.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the daemon's version, uptime, endpoints, counters and feeds.",
        discussion: """
            Exits with status 1 (after printing a timeout error) when no daemon answers, so it \
            doubles as a health check: rowcast status --timeout 1 >/dev/null && echo up
            """
    )

    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the status reply exactly, as one line of JSON.")
    var json = false

    func run() throws {
        try reportingErrors {
            let client = try controlEndpoint.makeClient(connection)
            defer { client.close() }
            let reply = try client.status()
            if json { return Output.json(reply) }
            DaemonReport.status(reply, width: TerminalWidth.columns).forEach(Output.line)
        }
    }
}
