import ArgumentParser
import RowCastClient
import RowCastJSON

/// `rowcast subscribe`: print a feed's deltas and events, or keep a replica of it.
struct SubscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Print a feed's deltas and events as they happen, or keep a live replica of it.",
        discussion: """
            Prints one JSON line per message received: the deltas of --feed (topic rows.<feed>), \
            its error events and its action events (every feed's when --feed is left out). \
            Runs until interrupted, unless --count, --until-seq or --until-idle says when to stop.

            With --replica, rowcast keeps a copy of the feed (snapshot, then deltas; PROTOCOL.md \
            "Keeping a replica") and prints the whole replica as one JSON line \
            {"feed","seq","epoch","sections"} when it is loaded and after every change, or as a \
            table with --table, or only once at exit with --final. That line is byte for byte \
            what `rowcast snapshot --state` prints for the same seq. Error and action events then \
            go to standard error, and so does a note whenever the replica had to be reloaded \
            (resynced) because a delta was missed or did not fit.

            A position event ({"event":"position",...}: where the feed stands, sent at once when \
            the feed exists and after its deltas) is printed but changes nothing. With CURVE, \
            rowcastd drops a subscription to a feed the key may not read without a word: when \
            the first heartbeat comes before any position of --feed, rowcast says so on standard \
            error (the feed is forbidden, or does not exist yet) and goes on waiting.

            --count N stops after N messages, positions not counted (so --count 1 waits for the \
            next delta or event); with --replica, after the replica has taken in N \
            deltas (a resync counts the deltas its fresh snapshot skipped ahead). Requests the \
            daemon applies together make one delta, so to wait for a known state prefer \
            --until-seq with the seq of the last ack. With --count or --until-seq, going \
            --timeout seconds without a message is an error (exit 1).

            Examples:
              rowcast subscribe --feed cars
              rowcast subscribe --feed cars --replica --table
              rowcast subscribe --feed cars --replica --until-seq 12 --final --timeout 30
              rowcast subscribe --feed cars --replica --count 3 | tail -n 1
            """
    )

    @OptionGroup var publishEndpoint: PublishEndpointOption
    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Option(
        help: ArgumentHelp(
            "The feed to follow; without it, every feed's deltas and events are printed.", valueName: "feed"))
    var feed: String?

    @Flag(help: "Keep a replica of --feed and print it after every change.")
    var replica = false

    @Flag(help: "With --replica: print the replica as a readable table instead of JSON.")
    var table = false

    @Flag(help: "With --replica: print the replica only once, when the command stops.")
    var final = false

    @Option(
        help: ArgumentHelp(
            "Stop after this many messages, positions not counted (with --replica: deltas taken in).", valueName: "n"))
    var count: Int?

    @Option(
        name: .customLong("until-seq"),
        help: ArgumentHelp(
            "Stop once a delta or position (with --replica: the replica) has reached this seq.", valueName: "seq"))
    var untilSeq: Int?

    @Option(
        name: .customLong("until-idle"),
        help: ArgumentHelp("Stop (successfully) after this many seconds without a message.", valueName: "seconds"))
    var untilIdle: Double?

    @Flag(name: .customLong("no-errors"), help: "Do not subscribe to the feed's error events.")
    var noErrors = false

    @Flag(
        name: .customLong("all-errors"), help: "Subscribe to every error event (of every feed, and those naming none).")
    var allErrors = false

    @Flag(name: .customLong("no-actions"), help: "Do not subscribe to the feed's action events.")
    var noActions = false

    @Flag(help: "Also print heartbeats.")
    var heartbeats = false

    func validate() throws {
        if replica, feed == nil { throw ValidationError("--replica needs --feed") }
        if table || final, !replica { throw ValidationError("--table and --final go with --replica") }
        if table, final { throw ValidationError("use either --table or --final") }
        if let count, count < 0 { throw ValidationError("--count must be 0 or more") }
        if let untilIdle, !(untilIdle > 0) {
            throw ValidationError("--until-idle must be a positive number of seconds")
        }
        if noErrors, allErrors { throw ValidationError("use either --no-errors or --all-errors") }
    }

    func run() throws {
        try reportingErrors {
            if replica, let feed { try followReplica(of: feed) } else { try printMessages() }
        }
    }

    /// The topics besides the feed's deltas.
    var eventTopics: [Topic] {
        var topics: [Topic] = []
        if allErrors {
            topics.append(.allErrors)
        } else if !noErrors {
            topics.append(feed.map(Topic.errors) ?? .allErrors)
        }
        if !noActions { topics.append(feed.map(Topic.actions) ?? Topic(prefix: Array("actions.".utf8))) }
        if heartbeats { topics.append(.heartbeat) }
        return topics
    }

    /// How long to wait for the next message, and what running out means.
    var wait: MessageWait {
        MessageWait(idle: untilIdle, giveUp: count != nil || untilSeq != nil ? connection.timeout : nil)
    }

    // MARK: - Plain messages

    func printMessages() throws {
        let curve = try connection.curve()
        let subscriber = try Subscriber(endpoint: publishEndpoint.publish, curve: curve)
        defer { subscriber.close() }
        try subscriber.subscribe(feed.map(Topic.rows) ?? Topic(prefix: Array("rows.".utf8)))
        for topic in eventTopics { try subscriber.subscribe(topic) }
        // With CURVE, rowcastd drops a subscription to a feed the key may not read without a
        // word. It applies subscriptions in order and sends the position of an existing feed
        // it allows at once, so a heartbeat (subscribed after the feed) before any position
        // means the feed is forbidden or does not exist yet: say so instead of waiting in silence.
        var awaitingPosition = curve != nil && feed != nil
        if awaitingPosition, !heartbeats { try subscriber.subscribe(.heartbeat) }
        var received = 0
        while count.map({ received < $0 }) ?? true {
            let message: SubscriberMessage?
            do {
                message = try subscriber.receive(timeout: wait.duration)
            } catch {
                // An unreadable message is reported and skipped; anything else ends the run.
                guard error.code == "invalid_reply" else { throw error }
                Output.error(error)
                continue
            }
            guard let message else { return try wait.expire(waitingFor: "messages on \(publishEndpoint.publish)") }
            if awaitingPosition, let feed, message.isPosition || message.isDelta || message.isHeartbeat {
                awaitingPosition = false
                if message.isHeartbeat { Output.note(Self.noPositionNote(feed: feed, keyFile: connection.key)) }
                // Heartbeats asked for only to settle this would keep --until-idle from ending.
                if !heartbeats { try subscriber.unsubscribe(.heartbeat) }
            }
            if message.isHeartbeat, !heartbeats { continue }
            Output.json(message.body)
            // A position says where the feed stands and changes nothing: it is not counted.
            if !message.isPosition { received += 1 }
            if let untilSeq, message.isDelta || message.isPosition, let seq = message.body["seq"]?.numberValue,
                seq >= Double(untilSeq)
            {
                return
            }
        }
    }

    /// The note for a CURVE subscription to `feed` that got a heartbeat but no position.
    static func noPositionNote(feed: String, keyFile: String?) -> String {
        "no position of feed \(feed) came before the first heartbeat: either the feed does not exist yet, or the key "
            + "\(keyFile.map { "in \($0) " } ?? "")may not read it (rowcastd then drops the subscription without a "
            + "word, so nothing will arrive); `rowcast snapshot --feed \(feed)` with the same key tells which"
    }

    // MARK: - Replica

    func followReplica(of feed: String) throws {
        let session = try ReplicaSession(
            feed: feed, controlEndpoint: controlEndpoint.control, publishEndpoint: publishEndpoint.publish,
            timeout: connection.timeoutDuration, curve: try connection.curve(), reportsRefusal: true)
        defer {
            session.subscriber.close()
            session.control.close()
        }
        for topic in eventTopics { try session.subscribe(topic) }
        var current = try session.start()
        Output.note("following feed \(feed) from seq \(current.seq) (epoch \(current.epoch ?? "none"))")
        show(current)
        var taken = 0
        func done() -> Bool {
            if let count, taken >= count { return true }
            if let untilSeq, current.seq >= untilSeq { return true }
            return false
        }
        while !done() {
            guard let event = try session.next(timeout: wait.duration) else {
                try wait.expire(waitingFor: "deltas of feed \(feed) (replica at seq \(current.seq))")
                break
            }
            switch event {
            case .loaded(let replica):
                current = replica
                show(current)
            case .applied(let replica, _):
                taken += 1
                current = replica
                show(current)
            case .resynced(let replica, let reason):
                Output.note("resynced feed \(feed) from a fresh snapshot (seq \(replica.seq)) because \(reason)")
                taken += replica.epoch == current.epoch ? max(replica.seq - current.seq, 1) : max(replica.seq, 1)
                current = replica
                show(current)
            case .message(let message):
                Output.note("\(message.event.isEmpty ? message.topic : message.event) event: \(message.body)")
            }
        }
        if final { Output.json(current.snapshotJSON) }
    }

    /// Prints the replica as --table or JSON says (nothing with --final).
    func show(_ replica: FeedReplica) {
        if final { return }
        if table {
            SnapshotTable(width: TerminalWidth.columns).render(replica).forEach(Output.line)
            Output.line("")
        } else {
            Output.json(replica.snapshotJSON)
        }
    }
}
