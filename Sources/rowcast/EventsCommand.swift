import ArgumentParser
import Foundation
import RowCastClient
import RowCastJSON

/// `rowcast events`: the action events of a feed, pulled from the daemon's kept history.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print a feed's action events after an event sequence, one JSON line each.",
        discussion: """
            rowcastd keeps the last 10,000 action events of each feed (across restarts) and \
            numbers them with eventSeq 1, 2, 3, ... A producer that handled events up to N \
            asks for those after N and misses none while it was down. When events after N \
            were already dropped, a note says so on standard error. Needs read on the feed.

            Examples:
              rowcast events --feed inbox
              rowcast events --feed inbox --after 41 --follow
            """
    )

    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The feed whose events to print.", valueName: "feed"))
    var feed: String

    @Option(
        help: ArgumentHelp("Print the events after this event sequence (0: from the oldest kept).", valueName: "seq"))
    var after = 0

    @Flag(help: "Keep asking for new events (every half second) until interrupted.")
    var follow = false

    func validate() throws {
        guard after >= 0 else {
            throw ValidationError("--after must be 0 or more, the eventSeq of the last event already handled")
        }
    }

    func run() throws {
        try reportingErrors {
            let client = try controlEndpoint.makeClient(connection)
            defer { client.close() }
            var position = after
            var warned = false
            while true {
                let page = try client.events(feed: feed, after: position)
                if !page.covered, !warned {
                    Output.note(
                        "events after \(position) of feed \(feed) were dropped (the oldest kept is \(page.first.map(String.init) ?? "none")); reconcile from a snapshot"
                    )
                    warned = true
                }
                for event in page.events { Output.json(event) }
                if !page.events.isEmpty { position = page.nextAfter }
                if page.more { continue }
                guard follow else { return }
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }
}
