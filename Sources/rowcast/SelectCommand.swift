import ArgumentParser
import RowCastClient
import RowCastJSON

/// `rowcast select`: run a row's action, as a tap on it would.
struct SelectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "select",
        abstract: "Run a row's action handler and print the action event.",
        discussion: """
            The daemon checks that the row declares the action and that the value fits its \
            role (an edit needs a value of its valueType, a toggle takes true or false, a tap \
            or a delete none), runs the handler of the plugin that rendered the row, applies \
            the change it returns (an update of the item, or its deletion) like an upsert or \
            a delete, replies with the event and the feed's new seq, and publishes the event \
            on actions.<feed>.

            The event is printed on standard output as one line of JSON; what became of the \
            feed goes to standard error ("rowcast: item 42 of feed cars updated: feed at seq \
            13, event 7"), so a pipe gets the event alone. --json prints the whole reply \
            (event, change, seq, epoch, eventSeq) instead.

            Examples:
              rowcast select --feed cars --id 42
              rowcast select --feed profile --id me --action edit_email --value ann@example.com
              rowcast select --feed inbox --id m7 --action delete
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

    @Option(
        help: ArgumentHelp(
            "The value the action takes: JSON (42, true, \"text\") or, when it is not JSON, a string.",
            valueName: "value"))
    var value: String?

    @Flag(help: "Print the whole select reply instead of only its event.")
    var json = false

    /// `text` as JSON when it is JSON, else as a string.
    static func parseValue(_ text: String) -> JSONValue {
        (try? JSONParser.parse(Array(text.utf8))) ?? .string(text)
    }

    /// What the select did to the feed: "item 42 of feed cars updated: feed at seq 13, event 7"
    /// (deleted, or unchanged for an action that changes no item).
    static func summary(of reply: JSONValue, feed: String, id: String) -> String {
        let change =
            switch reply["change"]?.stringValue {
            case "update": "updated"
            case "delete": "deleted"
            default: "unchanged"
            }
        var text = "item \(id) of feed \(feed) \(change)"
        if let seq = reply["seq"]?.numberValue { text += ": feed at seq \(Int(seq))" }
        if let eventSeq = reply["eventSeq"]?.numberValue { text += ", event \(Int(eventSeq))" }
        return text
    }

    func run() throws {
        try reportingErrors {
            let client = try controlEndpoint.makeClient(connection)
            defer { client.close() }
            let reply = try client.select(feed: feed, id: id, action: action, value: value.map(Self.parseValue))
            if json { return Output.json(reply) }
            Output.json(reply["event"] ?? reply)
            Output.note(Self.summary(of: reply, feed: feed, id: id))
        }
    }
}
