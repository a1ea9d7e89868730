import ArgumentParser
import RowCastClient
import RowCastJSON
import RowCastWire

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

            --limit N shows a window of at most N rows counted over every section in order, \
            from row --offset (0: the first), or centred on the row of item --around; the \
            reply's window member says which rows it holds out of how many.

            Examples:
              rowcast snapshot --feed cars
              rowcast snapshot --feed cars --json | jq '.sections[].rows[].id'
              rowcast snapshot --feed cars --offset 1000 --limit 50
              rowcast snapshot --feed cars --around 42 --limit 20
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

    @Option(help: ArgumentHelp("Show a window from this row (0: the first); needs --limit.", valueName: "row"))
    var offset: Int?

    @Option(help: ArgumentHelp("Show a window centred on this item's row; needs --limit.", valueName: "id"))
    var around: String?

    @Option(
        help: ArgumentHelp(
            "Show at most this many rows (1 to \(SnapshotWindow.maximumLimit)), from --offset or around --around.",
            valueName: "rows"))
    var limit: Int?

    func validate() throws {
        guard !(json && state) else { throw ValidationError("use either --json or --state") }
        guard offset == nil || around == nil else { throw ValidationError("use either --offset or --around") }
        if let limit {
            guard (1...SnapshotWindow.maximumLimit).contains(limit) else {
                throw ValidationError("--limit must be from 1 to \(SnapshotWindow.maximumLimit)")
            }
        } else if offset != nil || around != nil {
            throw ValidationError("--offset and --around need --limit, the most rows to show")
        }
        if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more") }
    }

    func run() throws {
        try reportingErrors {
            let client = try controlEndpoint.makeClient(connection)
            defer { client.close() }
            let reply =
                if let limit {
                    try client.snapshot(feed: feed, offset: offset, around: around, limit: limit)
                } else {
                    try client.snapshot(feed: feed)
                }
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
            if let window = reply["window"], let total = window["total"]?.numberValue,
                let first = window["offset"]?.numberValue, let rows = window["rows"]?.numberValue
            {
                let shown = rows == 0 ? "no rows" : "rows \(Int(first) + 1)-\(Int(first + rows))"
                Output.line("window: \(shown) of \(Int(total))")
            }
            for line in SnapshotTable(width: TerminalWidth.columns).render(
                replica, pending: reply["pending"]?.numberValue.map { Int($0) })
            {
                Output.line(line)
            }
        }
    }
}
