import ArgumentParser
import RowCastClient
import RowCastJSON

/// `rowcast locate`: where a row is, as `indexPathForRow` answers it.
struct LocateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "Print the section and row index of an item's row, and the seq they hold at.",
        discussion: """
            Prints where the row is in the feed's snapshot with that seq (its index path, as \
            indexPathForRow answers it): "item 42 of feed cars: section 0 (default), row 3, at \
            seq 12 (epoch 7d0c5e2a91b3f604)". --json prints \
            {"section":S,"row":R,"sectionId":...,"seq":N,"epoch":...} instead. An item without a \
            row (waiting for a plugin, or quarantined) or a missing item is not_found. Needs \
            read on the feed.

            Examples:
              rowcast locate --feed cars --id 42
              rowcast locate --feed cars --id 42 --json | jq .row
            """
    )

    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The feed of the row.", valueName: "feed"))
    var feed: String

    @Option(help: ArgumentHelp("The row (item) id.", valueName: "id"))
    var id: String

    @Flag(help: "Print the row's place as one line of JSON: section, row, sectionId, seq and epoch.")
    var json = false

    func run() throws {
        try reportingErrors {
            let client = try controlEndpoint.makeClient(connection)
            defer { client.close() }
            let location = try client.locate(feed: feed, id: id)
            guard json else {
                return Output.line(
                    "item \(id) of feed \(feed): section \(location.section) (\(location.sectionID)), row \(location.row), at seq \(location.seq) (epoch \(location.epoch))"
                )
            }
            Output.json([
                "section": .number(Double(location.section)), "row": .number(Double(location.row)),
                "sectionId": .string(location.sectionID), "seq": .number(Double(location.seq)),
                "epoch": .string(location.epoch),
            ])
        }
    }
}
