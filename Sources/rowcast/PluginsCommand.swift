import ArgumentParser
import RowCastClient

/// `rowcast plugins`: which plugin renders which type.
struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "Show the loaded cell-controller plugins, their types, and refused plugin files."
    )

    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the plugins reply exactly, as one line of JSON.")
    var json = false

    func run() throws {
        try reportingErrors {
            let client = try controlEndpoint.makeClient(connection)
            defer { client.close() }
            let reply = try client.plugins()
            if json { return Output.json(reply) }
            DaemonReport.plugins(reply, width: TerminalWidth.columns).forEach(Output.line)
        }
    }
}
