import ArgumentParser
import RowCastClient
import RowCastJSON

/// `rowcast locate`: where a row is, as `indexPathForRow` answers it.
struct LocateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "Print the section and row index of an item's row, and the seq they hold at.",
        discussion: """
            Prints {"section":S,"row":R,"sectionId":...,"seq":N,"epoch":...}: the row's index \
            path in the feed's snapshot with that seq. An item without a row (waiting for a \
            plugin, or quarantined) or a missing item is not_found. Needs read on the feed.

            Example:
              rowcast locate --feed cars --id 42
            """
    )

    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The feed of the row.", valueName: "feed"))
    var feed: String

    @Option(help: ArgumentHelp("The row (item) id.", valueName: "id"))
    var id: String

    func run() throws {
        try reportingErrors {
            let client = try controlEndpoint.makeClient(connection)
            defer { client.close() }
            let location = try client.locate(feed: feed, id: id)
            Output.json([
                "section": .number(Double(location.section)), "row": .number(Double(location.row)),
                "sectionId": .string(location.sectionID), "seq": .number(Double(location.seq)),
                "epoch": .string(location.epoch),
            ])
        }
    }
}
