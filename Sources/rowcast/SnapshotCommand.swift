import ArgumentParser
import RowCastClient
import RowCastJSON

/// `rowcast snapshot`: a feed's current state.
struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Show a feed's current sections and rows.",
        discussion: """
            A feed that does not exist is an error (not_found, exit status 1) unless \
            --allow-missing is given; then it prints as empty, with seq 0.

            By default prints a table per section (id, type, cell, height and a summary of the \
            content). --json prints the daemon's snapshot reply (its parts joined, for a big feed) as one line. --state \
            prints only {"feed","seq","epoch","sections"} in the form `rowcast subscribe \
            --replica` prints, so the two can be compared byte for byte.

            Examples:
              rowcast snapshot --feed cars
              rowcast snapshot --feed cars --json | jq '.sections[].rows[].id'
            """
    )

    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The feed to show.", valueName: "feed"))
    var feed: String

    @Flag(help: "Print the snapshot reply as one line of JSON (a big feed's parts joined into one reply).")
    var json = false

    @Flag(help: "Print only feed, seq, epoch and sections, as `subscribe --replica` prints a replica.")
    var state = false

    @Flag(
        name: .customLong("allow-missing"),
        help: "Print a feed that does not exist (seq 0, no sections) and exit 0, instead of failing with not_found.")
    var allowMissing = false

    func validate() throws {
        guard !(json && state) else { throw ValidationError("use either --json or --state") }
    }

    func run() throws {
        try reportingErrors {
            let client = try controlEndpoint.makeClient(connection)
            defer { client.close() }
            let reply = try client.snapshot(feed: feed)
            // A feed that does not exist has epoch null (PROTOCOL.md, "snapshot" reply).
            if !allowMissing, reply["epoch"]?.isNull ?? false {
                throw RowCastClientError(
                    code: "not_found",
                    message:
                        "feed \(feed) does not exist on rowcastd at \(controlEndpoint.control) (rowcast status lists the feeds; --allow-missing prints it empty)",
                    feed: feed)
            }
            if json { return Output.json(reply) }
            let replica: FeedReplica
            do {
                replica = try FeedReplica(snapshot: reply)
            } catch {
                throw RowCastClientError.invalidReply(
                    endpoint: controlEndpoint.control, "to snapshot of feed \(feed) is not a valid snapshot (\(error))")
            }
            if state { return Output.json(replica.snapshotJSON) }
            for line in SnapshotTable(width: TerminalWidth.columns).render(
                replica, pending: reply["pending"]?.numberValue.map { Int($0) })
            {
                Output.line(line)
            }
        }
    }
}
