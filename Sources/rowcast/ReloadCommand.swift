import ArgumentParser
import RowCastClient

/// `rowcast reload`: make the daemon re-read its configuration and rescan its plugins.
struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make rowcastd re-read its configuration file and rescan its plugin directories.",
        discussion: """
            The same as SIGHUP (systemctl reload rowcastd), with an answer: new plugins register, \
            changed plugin files take over their types (in a new plugin host), and subscribers get \
            the re-rendered rows as ordinary deltas. A plugin file that is refused is listed and \
            keeps its previous version serving; it never holds back the other files. A reload \
            with an invalid configuration changes nothing, prints why and exits with status 1.
            """
    )

    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the reload reply exactly, as one line of JSON.")
    var json = false

    func run() throws {
        try reportingErrors {
            let client = try controlEndpoint.makeClient(connection)
            defer { client.close() }
            let reply = try client.reload()
            if json { return Output.json(reply) }
            DaemonReport.reload(reply).forEach(Output.line)
        }
    }
}
