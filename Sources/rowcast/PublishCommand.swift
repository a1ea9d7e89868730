import ArgumentParser
import Foundation
import RowCastClient
import RowCastJSON

/// `rowcast publish`: one item (or delete, or section) from flags, or requests from a file.
struct PublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Send feed operations: one item from flags, or requests from a file or stdin.",
        discussion: """
            By default each request goes to the control socket and rowcast waits for its reply, \
            printing one line per request ("ok cars seq=12", or "error: code: message" on \
            standard error). The exit status is 1 when any request failed. Up to --window \
            requests are in flight at once; one unanswered for --retry-timeout is sent again \
            (with every later one, in order) over a new connection, and the daemon answers a \
            repeat with its first answer, so nothing is applied twice; --timeout bounds each \
            request, retries included. Lines appear as the replies arrive. When a request gets \
            no answer within --timeout, it and every request in flight fail with timeout, the \
            rest are not sent (one "error: not_sent" line counts them), and rowcast exits 1: with \
            the daemon gone that takes about one --timeout, however many requests there are. With --no-ack the requests are pushed to the ingest \
            socket without replies (at most once: a request lost in a crash is not reported); \
            problems then appear only on the daemon's error topics (rowcast subscribe shows \
            them).

            A field value that reads as JSON (a number, true, false, null, an array, an object \
            or a "quoted string") is sent as that JSON value; anything else is sent as a \
            string. --string-field always sends a string.

            A reset's reply says what it left out: "ok cars seq=12 rejected=1 duplicates=2" \
            counts the items the plugin rejected and the ids listed more than once (the last \
            copy is kept), and a "warning: code: message" line on standard error names each \
            (ten of each at most; --json prints the whole reply).

            A --file holds one JSON request, a JSON array of them, or NDJSON (one per line). An \
            element without "op" is an item, upserted into --feed; requests without "feed" get \
            --feed's. A reset is a request like {"op":"reset","feed":"cars","items":[...]}; \
            --reset builds one from the items of --file (or empties the feed without --file). \
            NDJSON on standard input (--file -) is sent line by line as it arrives, so a \
            producer that keeps running sees each ack (or, with --no-ack, each item in the \
            feed) at once; a JSON array or a value over several lines is read to the end first. \
            An unreadable line is reported and the next ones are still sent. When standard \
            error is a terminal, a run that lasts more than half a second keeps a progress line \
            under the results: requests sent and answered, the rate and the time left.

            Examples:
              rowcast publish --feed cars --type product --id 42 --field price=39999
              rowcast publish --feed cars --type product --id 42 --string-field sku=0042
              rowcast publish --feed cars --delete --id 42
              rowcast publish --feed cars --declare-section --section deals --order 1
              rowcast publish --feed cars --delete-section --section deals
              rowcast publish --feed cars --file items.ndjson
              rowcast publish --feed cars --reset --file items.ndjson
              rowcast publish --feed cars --file batch-17.ndjson --client nightly-import --req 1700
              generate-items | rowcast publish --feed cars --file - --no-ack
            """
    )

    @OptionGroup var controlEndpoint: ControlEndpointOption
    @OptionGroup var ingestEndpoint: IngestEndpointOption
    @OptionGroup var connection: ConnectionOptions

    @Option(
        help: ArgumentHelp("The feed to change (the default feed of items and requests in --file).", valueName: "feed"))
    var feed: String?

    @Option(help: ArgumentHelp("The item id (for an upsert or --delete).", valueName: "id"))
    var id: String?

    @Option(help: ArgumentHelp("The item type; it picks the plugin that renders the item.", valueName: "type"))
    var type: String?

    @Option(
        help: ArgumentHelp(
            "The section of the item, or the section for --declare-section and --delete-section.", valueName: "section")
    )
    var section: String?

    // .unconditional: the next word is the value even when it starts with "-" (--sort -1).
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The item's sort key within its section; may be negative (--sort -1).", valueName: "number"))
    var sort: Double?

    @Option(
        name: .customLong("field"),
        help: ArgumentHelp(
            "An item data field, key=value; repeatable. JSON values are sent as JSON.", valueName: "key=value"))
    var fields: [String] = []

    @Option(
        name: .customLong("string-field"),
        help: ArgumentHelp(
            "An item data field whose value is always sent as a string; repeatable.", valueName: "key=value"))
    var stringFields: [String] = []

    @Flag(help: "Delete the item --id instead of upserting.")
    var delete = false

    @Flag(
        name: .customLong("declare-section"),
        help: "Declare the section --section (with --order, --section-type, --header) instead of upserting an item.")
    var declareSection = false

    @Flag(name: .customLong("delete-section"), help: "Delete the section --section and every item in it.")
    var deleteSection = false

    @Flag(
        help:
            "Replace the whole feed --feed with the items of --file, in one reset request; without --file, empty the feed."
    )
    var reset = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The order of a declared section; may be negative (--order -1).", valueName: "number"))
    var order: Double?

    @Option(
        name: .customLong("section-type"),
        help: ArgumentHelp("The type of a declared section (a plugin renders its header row).", valueName: "type"))
    var sectionType: String?

    @Option(
        name: .customLong("header"),
        help: ArgumentHelp("A header field of a declared section, key=value; repeatable.", valueName: "key=value"))
    var headerFields: [String] = []

    @Option(
        help: ArgumentHelp(
            "Read requests from this file (JSON, a JSON array, or NDJSON); - reads standard input.", valueName: "path"))
    var file: String?

    @Flag(name: .customLong("no-ack"), help: "Push the requests to the ingest socket without waiting for replies.")
    var noAck = false

    @Option(
        help: ArgumentHelp(
            "Acked requests in flight at once (1 to \(AckedPublisherOptions.maximumWindow)).", valueName: "n"))
    var window = 64

    @Option(
        name: .customLong("retry-timeout"),
        help: ArgumentHelp(
            "Seconds before an unanswered request is sent again over a new connection.", valueName: "seconds"))
    var retryTimeout: Double = 1

    @Flag(help: "Print each reply as one line of JSON instead of a summary.")
    var json = false

    @Option(
        name: .customLong("client"),
        help: ArgumentHelp(
            "The client name of the requests instead of a random one, with --req: running the same command again (a retry after a timeout, even after rowcastd restarted) gets the first run's answers instead of applying the requests twice.",
            valueName: "name"))
    var client: String?

    @Option(
        name: .customLong("req"),
        help: ArgumentHelp(
            "The req of the first request, with --client; the next ones get req+1, req+2, ... Use a new range for new requests.",
            valueName: "n"))
    var req: Int?

    /// The largest `--req`: requests are numbered on from it, and a JSON number is exact up to
    /// 2^53, so this leaves room for 2^52 requests.
    static let largestReq = 1 << 52

    /// The flags' rules, checked when the command runs rather than in `validate()`:
    /// ArgumentParser runs `validate()` before it reports an argument it does not know, so a
    /// mistyped flag (`--fed cars`) was answered "missing --feed" instead of "Unknown option".
    func checkFlags() throws {
        guard (1...AckedPublisherOptions.maximumWindow).contains(window) else {
            throw ValidationError("--window must be between 1 and \(AckedPublisherOptions.maximumWindow)")
        }
        guard retryTimeout > 0, retryTimeout.isFinite else {
            throw ValidationError("--retry-timeout must be a positive number of seconds")
        }
        let modes = [delete, declareSection, deleteSection, reset].filter { $0 }.count
        guard modes <= 1 else {
            throw ValidationError("use only one of --delete, --declare-section, --delete-section and --reset")
        }
        if reset {
            guard feed != nil else { throw ValidationError("--reset needs --feed") }
            let itemFlags =
                id != nil || type != nil || section != nil || sort != nil || !fields.isEmpty
                || !stringFields.isEmpty || order != nil || sectionType != nil || !headerFields.isEmpty
            guard !itemFlags else {
                throw ValidationError("--reset takes its items from --file; only --feed and --file go with it")
            }
            return
        }
        if file != nil {
            let itemFlags =
                id != nil || type != nil || section != nil || sort != nil || !fields.isEmpty
                || !stringFields.isEmpty || modes > 0 || order != nil || sectionType != nil || !headerFields.isEmpty
            guard !itemFlags else {
                throw ValidationError(
                    "--file takes the requests from the file; only --feed (the default feed) may go with it")
            }
            return
        }
        guard feed != nil else { throw ValidationError("missing --feed (or give requests with --file)") }
        if delete {
            guard id != nil else { throw ValidationError("--delete needs --id") }
            guard type == nil, fields.isEmpty, stringFields.isEmpty else {
                throw ValidationError("--delete takes only --feed and --id")
            }
        } else if declareSection || deleteSection {
            guard section != nil else {
                throw ValidationError("\(declareSection ? "--declare-section" : "--delete-section") needs --section")
            }
            guard id == nil, type == nil, fields.isEmpty, stringFields.isEmpty, sort == nil else {
                throw ValidationError("a section operation takes no item flags (--id, --type, --field, --sort)")
            }
        } else {
            guard id != nil, type != nil else {
                throw ValidationError("an item needs --id and --type (or use --delete, or --file)")
            }
        }
        if !declareSection, order != nil || sectionType != nil || !headerFields.isEmpty {
            throw ValidationError("--order, --section-type and --header go with --declare-section")
        }
        if let client {
            guard !client.isEmpty, !client.contains("\0") else {
                throw ValidationError("--client must be a non-empty name without NUL")
            }
            guard req != nil else {
                throw ValidationError(
                    "--client needs --req: a run under the same client numbered from 1 again would get an earlier run's answers"
                )
            }
            guard !noAck else {
                throw ValidationError(
                    "--client and --req name acked requests; --no-ack pushes requests that get no answer to repeat")
            }
        }
        if let req {
            guard client != nil else {
                throw ValidationError("--req goes with --client: a random client's numbers never repeat")
            }
            guard (1...Self.largestReq).contains(req) else {
                throw ValidationError("--req must be from 1 to \(Self.largestReq)")
            }
        }
    }

    func run() throws {
        do {
            try checkFlags()
        } catch {
            // Reported as ArgumentParser reports a `validate()` error: the message, this
            // command's usage, exit status 64.
            let usage = RowCastCommand.usageString(for: Self.self)
            FileHandle.standardError.write(
                Data("Error: \(error)\nUsage: \(usage)\n  See 'rowcast publish --help' for more information.\n".utf8))
            throw ExitCode.validationFailure
        }
        try reportingErrors {
            if reset, !noAck, let feed {
                let items = try resetItems(feed: feed)
                if RowCastRequest.reset(feed: feed, items: items).serialized().count > ControlClient.resetPartBytes {
                    guard client == nil else {
                        throw RowCastClientError(
                            code: "invalid_request",
                            message:
                                "this reset is over \(ControlClient.resetPartBytes / 1024) KiB, so it is sent in parts, which number their own requests: it cannot take --client and --req"
                        )
                    }
                    try resetInParts(feed: feed, items: items)
                    return
                }
            }
            if file == "-", !reset {
                // Standard input: NDJSON is sent as it arrives.
                switch try StandardInputRequests.open(reader: RequestReader(source: "stdin", defaultFeed: feed)) {
                case .stream(var source):
                    let failures = noAck ? try push(from: &source) : try send(from: &source)
                    if failures > 0 { throw ExitCode.failure }
                    return
                case .whole(let requests):
                    var source = ArrayRequestSource(requests)
                    let failures = noAck ? try push(from: &source) : try send(from: &source)
                    if failures > 0 { throw ExitCode.failure }
                    return
                }
            }
            var source = ArrayRequestSource(try buildRequests())
            let failures = noAck ? try push(from: &source) : try send(from: &source)
            if failures > 0 { throw ExitCode.failure }
        }
    }

    /// The items of --file for --reset: bare items, or upserts into --feed.
    func resetItems(feed: String) throws -> [JSONValue] {
        guard let file else { return [] }
        let reader = RequestReader(source: file == "-" ? "stdin" : file, defaultFeed: feed)
        return try reader.requests(from: try InputText.read(file, option: "--file")).enumerated().map {
            index, request in
            guard request["op"] == "upsert", request["feed"] == .string(feed), let item = request["item"] else {
                throw ValidationError(
                    "--reset: element \(index + 1) of \(file == "-" ? "stdin" : file) is not an item (or an upsert into \(feed))"
                )
            }
            return item
        }
    }

    /// The requests this invocation stands for.
    func buildRequests() throws -> [JSONValue] {
        if reset, let feed {
            return [RowCastRequest.reset(feed: feed, items: try resetItems(feed: feed))]
        }
        if let file {
            let reader = RequestReader(source: file == "-" ? "stdin" : file, defaultFeed: feed)
            return try reader.requests(from: try InputText.read(file, option: "--file"))
        }
        guard let feed else { return [] }
        if delete, let id { return [RowCastRequest.delete(feed: feed, id: id)] }
        if deleteSection, let section { return [RowCastRequest.deleteSection(feed: feed, id: section)] }
        if declareSection, let section {
            var object: JSONObject = ["id": .string(section)]
            if let order { object["order"] = .number(order) }
            if let sectionType { object["type"] = .string(sectionType) }
            if !headerFields.isEmpty {
                var header = ItemBuilder(id: "", type: "")
                for field in headerFields { try header.addField(field) }
                object["header"] = .object(header.fields)
            }
            return [RowCastRequest.section(feed: feed, section: .object(object))]
        }
        var builder = ItemBuilder(id: id ?? "", type: type ?? "", section: section, sort: sort)
        for field in fields { try builder.addField(field) }
        for field in stringFields { try builder.addField(field, forceString: true) }
        return [RowCastRequest.upsert(feed: feed, item: builder.item)]
    }

    /// Sends over the control socket, --window at a time, retrying unanswered requests;
    /// prints one line per result, in order; returns the number of failures.
    func send(from input: inout some RequestSource) throws -> Int {
        var options = AckedPublisherOptions(
            window: window, retryTimeout: .seconds(fractional: retryTimeout), timeout: connection.timeoutDuration)
        options.reportsRefusal = true
        let publisher = try AckedPublisher(
            endpoint: controlEndpoint.control, options: options, clientID: client, firstRequest: req ?? 1,
            curve: try connection.curve())
        defer { publisher.close() }
        var failures = 0
        var notSent: RowCastClientError?
        var notSentCount = 0
        // On a terminal, a progress line under the results (standard error).
        let total = (input as? ArrayRequestSource)?.count
        let progress = total == 1 ? nil : ProgressLine.onTerminal(total: total)
        var source = CountedRequests(input, progress: progress)
        defer { input = source.base }
        func report(_ lines: () -> Void) {
            if let progress { progress.print(lines) } else { lines() }
        }
        // Each result is printed (and written out: Output writes unbuffered) as soon as it is
        // known, so a pipeline follows progress. Requests not sent because the daemon stopped
        // answering are summed up in one line at the end.
        publisher.publish(from: &source) { _, result in
            progress?.answered()
            switch result {
            case .success(let reply):
                report {
                    if json {
                        Output.json(reply)
                    } else {
                        let ack = RowCastAck(reply: reply)
                        Output.line(ack.description)
                        Output.problems(of: ack)
                    }
                }
            case .failure(let error) where error.code == "not_sent":
                failures += 1
                notSentCount += 1
                notSent = error
            case .failure(let error):
                failures += 1
                report {
                    if json, let reply = error.reply { Output.json(reply) }
                    Output.error(error)
                }
            }
        }
        progress?.finish()
        if let notSent {
            Output.error(
                RowCastClientError(code: notSent.code, message: "\(notSentCount) request(s) \(notSent.message)"))
            if let stdin = source.base as? StandardInputRequests, !stdin.isAtEnd {
                Output.note("the rest of standard input was not read")
            }
        }
        return failures
    }

    /// Sends a reset too big for one message in parts (reset_begin, reset_append...,
    /// reset_commit: docs/PROTOCOL.md, "Resets in parts"), acked once, and prints that ack.
    func resetInParts(feed: String, items: [JSONValue]) throws {
        let client = try ControlClient(
            endpoint: controlEndpoint.control, timeout: connection.timeoutDuration,
            clientName: AckedPublisher.randomClientID(prefix: "rowcast-reset"), curve: try connection.curve(),
            reportsRefusal: true)
        defer { client.close() }
        Output.note(
            "sending the reset of \(items.count) item(s) into \(feed) in parts of about \(ControlClient.resetPartBytes / 1024) KiB"
        )
        let ack = try client.resetInParts(feed: feed, items: items)
        if json {
            Output.json(ack.reply)
        } else {
            Output.line(ack.description)
            Output.problems(of: ack)
        }
    }

    /// Pushes over the ingest socket, each request as the source gives it; returns the number
    /// of requests that could not be read or queued (the first that cannot be queued ends it).
    func push(from source: inout some RequestSource) throws -> Int {
        let publisher = try Publisher(
            endpoint: ingestEndpoint.ingest, timeout: connection.timeoutDuration,
            controlEndpoint: controlEndpoint.control, curve: try connection.curve())
        defer { publisher.close(flushWithin: connection.timeoutDuration) }
        var queued = 0
        var failures = 0
        while let next = source.next() {
            switch next {
            case .failure(let unreadable):
                Output.error(unreadable)
                failures += 1
            case .success(let request):
                do {
                    try publisher.send(request)
                    queued += 1
                } catch {
                    Output.error(error)
                    return failures + 1
                }
            }
        }
        Output.note(
            "queued \(queued) request(s) for \(ingestEndpoint.ingest) without acks; problems appear on the errors topic"
        )
        return failures
    }
}
