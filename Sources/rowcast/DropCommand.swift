import ArgumentParser
import RowCastClient
import RowCastJSON

/// `rowcast drop`: remove a feed with its history, freeing its place under the feed limit.
struct DropCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop",
        abstract: "Remove a feed with its items, sections and history, freeing its place.",
        discussion: """
            The feed's subscribers get a last delta that empties it; its place under \
            limits.max_feeds is free at once, and a feed created later under the name starts a \
            new epoch. Its action events are kept. Under CURVE it needs the reset permission on \
            the feed. A feed that does not exist is not_found (exit status 1).
            Example:
              rowcast drop --feed trial-2026-10
            """
    )

    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The feed to drop.", valueName: "feed"))
    var feed: String

    @Flag(help: "Print the drop reply exactly, as one line of JSON.")
    var json = false

    func run() throws {
        try reportingErrors {
            let client = try controlEndpoint.makeClient(connection)
            defer { client.close() }
            let reply = try client.drop(feed: feed)
            if json { return Output.json(reply) }
            let dropped = reply["dropped"]
            let items = Int(dropped?["items"]?.numberValue ?? 0)
            let sections = Int(dropped?["sections"]?.numberValue ?? 0)
            let seq = Int(dropped?["seq"]?.numberValue ?? 0)
            Output.line(
                "dropped \(feed): \(items) item\(items == 1 ? "" : "s"), \(sections) section\(sections == 1 ? "" : "s"), last seq \(seq)"
            )
        }
    }
}
