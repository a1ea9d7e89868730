import ArgumentParser
import RowCastClient
import RowCastKit

/// `rowcast snapshot`: a feed's current state.
struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Show a feed's current sections and rows.",
        discussion: """
            By default prints a table per section (id, type, cell, height and a summary of the \
            content). --json prints the daemon's snapshot reply exactly, as one line. --state \
            prints only {"feed","seq","epoch","sections"} in the form `rowcast subscribe \
            --replica` prints, so the two can be compared byte for byte.

            Examples:
              rowcast snapshot --feed cars
              rowcast snapshot --feed cars --json | jq '.sections[].rows[].id'
            """
    )

    @OptionGroup var endpoints: EndpointOptions

    @Option(help: ArgumentHelp("The feed to show.", valueName: "feed"))
    var feed: String

    @Flag(help: "Print the snapshot reply exactly, as one line of JSON.")
    var json = false

    @Flag(help: "Print only feed, seq, epoch and sections, as `subscribe --replica` prints a replica.")
    var state = false

    func validate() throws {
        guard !(json && state) else { throw ValidationError("use either --json or --state") }
    }

    func run() throws {
        try reportingErrors {
            let client = try endpoints.makeControlClient()
            defer { client.close() }
            let reply = try client.snapshot(feed: feed)
            if json { return Output.json(reply) }
            let replica: FeedReplica
            do {
                replica = try FeedReplica(snapshot: reply)
            } catch {
                throw RowCastClientError.invalidReply(endpoint: endpoints.control, "to snapshot of feed \(feed) is not a valid snapshot (\(error))")
            }
            if state { return Output.json(replica.snapshotJSON) }
            for line in SnapshotTable().render(replica, pending: reply["pending"]?.numberValue.map { Int($0) }) {
                Output.line(line)
            }
        }
    }
}
