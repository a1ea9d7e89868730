import ArgumentParser
import RowCastClient

/// `rowcast reload`: make the daemon re-read its configuration and rescan its plugins.
struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make rowcastd re-read its configuration file and rescan its plugin directories.",
        discussion: """
            The same as SIGHUP (systemctl reload rowcastd), with an answer: new plugins register, \
            changed plugin files take over their types, and subscribers get the re-rendered rows \
            as ordinary deltas. A reload that fails (an invalid configuration, a refused plugin) \
            changes nothing, prints why and exits with status 1.
            """
    )

    @OptionGroup var endpoints: EndpointOptions

    @Flag(help: "Print the reload reply exactly, as one line of JSON.")
    var json = false

    func run() throws {
        try reportingErrors {
            let client = try endpoints.makeControlClient()
            defer { client.close() }
            let reply = try client.reload()
            if json { return Output.json(reply) }
            DaemonReport.reload(reply).forEach(Output.line)
        }
    }
}
