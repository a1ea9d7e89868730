import ArgumentParser
import RowCastClient

/// `rowcast quarantine`: the items whose plugin crashed or hung on them, and retrying them.
struct QuarantineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quarantine",
        abstract: "List the items whose plugin crashed or hung on them, or retry them.",
        discussion: """
            An item whose plugin crashed (plugin_crashed) or did not return in time \
            (plugin_timeout) is stored but not rendered, and not rendered again (not at a \
            start, not at a reload) until a new version of the item is published or you retry \
            it here: fix the plugin, reload, then retry. The quarantine is stored with the \
            items and keeps at most 1,000 items per feed and 100,000 in all (past that the \
            oldest is dropped, with a quarantine_full error). See docs/OPERATIONS.md, \
            "Quarantine".
            """,
        subcommands: [List.self, Retry.self],
        defaultSubcommand: List.self
    )

    /// `rowcast quarantine [list]`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the quarantined items (the default).")

        @OptionGroup var controlEndpoint: ControlEndpointOption
        @OptionGroup var connection: ConnectionOptions

        @Option(help: ArgumentHelp("Only the items of this feed.", valueName: "feed"))
        var feed: String?

        @Flag(help: "Print the quarantine reply exactly, as one line of JSON.")
        var json = false

        func run() throws {
            try reportingErrors {
                let client = try controlEndpoint.makeClient(connection)
                defer { client.close() }
                let reply = try client.quarantine(feed: feed)
                if json { return Output.json(reply) }
                DaemonReport.quarantine(reply, width: TerminalWidth.columns).forEach(Output.line)
            }
        }
    }

    /// `rowcast quarantine retry`.
    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract: "Render quarantined items again: all, those of --feed, or item --id of --feed.",
            discussion:
                "Items that render get their rows back (subscribers get ordinary deltas); the rest stay, with their new error."
        )

        @OptionGroup var controlEndpoint: ControlEndpointOption
        @OptionGroup var connection: ConnectionOptions

        @Option(help: ArgumentHelp("Only the items of this feed.", valueName: "feed"))
        var feed: String?

        @Option(help: ArgumentHelp("Only this item (needs --feed).", valueName: "id"))
        var id: String?

        @Flag(help: "Print the quarantine reply exactly, as one line of JSON.")
        var json = false

        func validate() throws {
            if id != nil, feed == nil { throw ValidationError("--id needs --feed") }
        }

        func run() throws {
            try reportingErrors {
                let client = try controlEndpoint.makeClient(connection)
                defer { client.close() }
                let reply = try client.quarantine(retry: true, feed: feed, id: id)
                if json { return Output.json(reply) }
                DaemonReport.quarantine(reply, width: TerminalWidth.columns).forEach(Output.line)
            }
        }
    }
}
