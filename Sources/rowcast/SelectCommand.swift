import ArgumentParser
import RowCastClient

/// `rowcast select`: run a row's action, as a tap on it would.
struct SelectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "select",
        abstract: "Run a row's action handler and print the action event.",
        discussion: """
            The daemon runs the handler of the plugin that rendered the row, replies with the \
            event it returned and publishes the same event on actions.<feed>.

            Example:
              rowcast select --feed cars --id 42
            """
    )

    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The feed of the row.", valueName: "feed"))
    var feed: String

    @Option(help: ArgumentHelp("The row (item) id.", valueName: "id"))
    var id: String

    @Option(help: ArgumentHelp("The action name, as listed in the row's actions.", valueName: "action"))
    var action = "select"

    @Flag(help: "Print the whole select reply instead of only its event.")
    var json = false

    func run() throws {
        try reportingErrors {
            let client = try controlEndpoint.makeClient(connection)
            defer { client.close() }
            let reply = try client.select(feed: feed, id: id, action: action)
            Output.json(json ? reply : (reply["event"] ?? reply))
        }
    }
}
