import RowCastJSON
import RowCastWire

/// Turns the bytes of one message into a validated `Request`, or an error that names what is
/// wrong. Parsing happens once; nothing here allocates per field beyond the parsed values.
public struct RequestDecoder: Sendable {
    /// Where a message came from: some operations are only taken on the control socket.
    public enum Channel: Sendable {
        /// The PULL socket: feed operations only, fire-and-forget.
        case ingest
        /// The ROUTER socket: everything, with a reply.
        case control
    }

    /// The largest message accepted, in bytes.
    public var maximumMessageBytes: Int

    /// Whether a plain upsert goes through `UpsertFastLane` (the same request, fewer
    /// instructions); false sends every message through the general decoder, so that tests and
    /// the fuzz harness can compare the two.
    public var usesFastLane: Bool

    /// A decoder that refuses messages over `maximumMessageBytes`.
    public init(maximumMessageBytes: Int = 1 << 20, usesFastLane: Bool = true) {
        self.maximumMessageBytes = maximumMessageBytes
        self.usesFastLane = usesFastLane
    }

    /// The outcome of decoding: a request, or an error with whatever correlation fields could
    /// still be read (so the error can be echoed to the right caller and feed).
    public enum Outcome: Sendable {
        /// A valid request.
        case request(Request)
        /// An invalid one. Boxed (`indirect`), so that an outcome is one reference wide: the
        /// engine copies each message's outcome a few times, and a copy of the error's many
        /// fields inline cost every request, valid ones included, a copy of that size.
        indirect case failure(RowCastError, op: String?, req: RequestID?, client: String?)
    }

    /// Decodes one message body received on `channel`. `size` is the body's full size when
    /// `bytes` holds only its first bytes (a message over the limit, cut on receipt).
    public func decode(_ bytes: [UInt8], size: Int? = nil, from channel: Channel) -> Outcome {
        let size = size ?? bytes.count
        guard size <= maximumMessageBytes else {
            let found = Correlation(prefix: bytes)
            var error = RowCastError(
                .tooLarge,
                "message of \(size) bytes is over the limit of \(maximumMessageBytes) bytes (limits.max_message_bytes); split it (a reset into upserts, say) or raise the limit"
            )
            if let feed = found.feed, Names.isValidFeed(feed) { error.feed = feed }
            return .failure(error, op: found.op, req: found.req.flatMap { $0.isValid ? $0 : nil }, client: found.client)
        }
        if usesFastLane, let request = UpsertFastLane.decode(bytes) {
            return .request(request)
        }
        var object = JSONObject()
        var rawItem: RawItem?
        var rawItems: [RawItem.Element]?
        var req: RequestID?
        var reqKind: String?
        do {
            guard
                try JSONParser.read(
                    bytes,
                    { reader in
                        guard reader.peekValueStart() == UInt8(ascii: "{") else {
                            object.append(key: "", value: try reader.readValue())
                            return false
                        }
                        try reader.beginObject()
                        while let key = try reader.nextKey() {
                            switch (key, reader.peekValueStart()) {
                            case ("item", UInt8(ascii: "{")):
                                rawItem = try RawItem.read(&reader, source: bytes)
                            case ("req", let first):
                                // Kept as the exact text sent; only its kind is looked at.
                                let range = try reader.skipValue()
                                req = RequestID(bytes, range: range)
                                reqKind = req == nil ? Self.kindName(first) : nil
                                object.append(key: key, value: .null)
                            case ("items", UInt8(ascii: "[")):
                                var list: [RawItem.Element] = []
                                if try reader.beginArray() {
                                    repeat {
                                        if reader.peekValueStart() == UInt8(ascii: "{") {
                                            list.append(.item(try RawItem.read(&reader, source: bytes)))
                                        } else {
                                            list.append(.other(try reader.readValue()))
                                        }
                                    } while try reader.nextElement()
                                }
                                rawItems = list
                            default:
                                object.append(key: key, value: try reader.readValue())
                            }
                        }
                        return true
                    })
            else {
                let value = object[""]!
                return .failure(
                    RowCastError(.invalidRequest, "a request must be a JSON object, got \(value.kindName)"), op: nil,
                    req: nil, client: nil)
            }
        } catch {
            return .failure(RowCastError(.invalidJSON, "invalid JSON: \(error)"), op: nil, req: nil, client: nil)
        }
        let client = object["client"]?.stringValue
        let op = object["op"]?.stringValue
        do throws(RowCastError) {
            let request = try decode(
                object, item: rawItem, items: rawItems, channel: channel, req: req, reqKind: reqKind, client: client)
            return .request(request)
        } catch {
            var error = error
            if error.feed == nil, let feed = object["feed"]?.stringValue, Names.isValidFeed(feed) { error.feed = feed }
            return .failure(error, op: op, req: req, client: client)
        }
    }

    private func decode(
        _ object: JSONObject, item rawItem: RawItem?, items rawItems: [RawItem.Element]?, channel: Channel,
        req: RequestID?, reqKind: String?, client: String?
    ) throws(RowCastError) -> Request {
        let top = FieldReader(object: object, path: "", context: "request")
        let op = try top.string("op")
        if let reqKind {
            throw RowCastError(
                .invalidField, "request: field \"req\" must be a string or an integer, got \(reqKind)", field: "req")
        }
        if let req, !req.isValid {
            throw RowCastError(
                .invalidField,
                "request: field \"req\" must be a string or an integer written without fraction or exponent, got \(req.json)",
                field: "req")
        }
        if let value = object["client"], client == nil {
            throw RowCastError(
                .invalidField, "request: field \"client\" must be a string, got \(value.kindName)", field: "client")
        }
        if let client, !Names.isValidClient(client) {
            throw RowCastError(.invalidField, "request: field \"client\" must not contain U+0000", field: "client")
        }
        let reader = FieldReader(object: object, path: "", context: op)
        switch op {
        case "upsert":
            try reader.rejectUnknown(allowing: Allowed.upsert)
            let feed = try feedName(reader)
            guard let rawItem else {
                _ = try reader.object("item")  // throws the missing or mistyped field
                throw RowCastError(.internalError, "upsert: item was not read")
            }
            let item = try Self.item(rawItem, path: "item.", context: op)
            return Request(op: op, feed: feed, operation: .upsert(item), req: req, client: client)
        case "delete":
            try reader.rejectUnknown(allowing: Allowed.byID)
            return Request(
                op: op, feed: try feedName(reader), operation: .delete(id: try reader.id("id")), req: req,
                client: client)
        case "section":
            try reader.rejectUnknown(allowing: Allowed.section)
            let feed = try feedName(reader)
            let section = try Self.section(try reader.object("section"), path: "section.", context: op)
            return Request(op: op, feed: feed, operation: .section(section), req: req, client: client)
        case "delete_section":
            try reader.rejectUnknown(allowing: Allowed.byID)
            return Request(
                op: op, feed: try feedName(reader), operation: .deleteSection(id: try reader.id("id")), req: req,
                client: client)
        case "reset":
            try reader.rejectUnknown(allowing: Allowed.reset)
            let feed = try feedName(reader)
            guard rawItems != nil || !(object["items"]?.isNull ?? true) else {
                throw RowCastError(
                    .missingField, "reset: missing field \"items\" (send [] to empty the feed)", field: "items")
            }
            let (items, sections) = try Self.contents(reader, rawItems: rawItems, context: op)
            return Request(
                op: op, feed: feed, operation: .reset(items: items, sections: sections), req: req, client: client)
        case "drop":
            guard channel == .control else {
                throw RowCastError(
                    .unknownOp, "drop: only taken on the control socket (ROUTER), not on ingest (PULL): it is answered",
                    field: "op")
            }
            try reader.rejectUnknown(allowing: Allowed.feed)
            return Request(op: op, feed: try feedName(reader), operation: .drop, req: req, client: client)
        case "reset_begin", "reset_append", "reset_commit":
            guard channel == .control else {
                throw RowCastError(
                    .unknownOp,
                    "\(op): only taken on the control socket (ROUTER), not on ingest (PULL): each step is answered",
                    field: "op")
            }
            let feed = try feedName(reader)
            if op == "reset_begin" {
                try reader.rejectUnknown(allowing: Allowed.feed)
                return Request(op: op, feed: feed, operation: .resetBegin, req: req, client: client)
            }
            let token = try reader.string("reset")
            if op == "reset_commit" {
                try reader.rejectUnknown(allowing: Allowed.resetCommit)
                return Request(op: op, feed: feed, operation: .resetCommit(token: token), req: req, client: client)
            }
            try reader.rejectUnknown(allowing: Allowed.resetAppend)
            guard let part = try reader.optionalNumber("part"), part >= 0, part < 1e9, part == part.rounded() else {
                throw RowCastError(
                    .invalidField,
                    "reset_append: \"part\" must be a whole number from 0 (the part's place, so a part sent twice is applied once)",
                    field: "part")
            }
            let (items, sections) = try Self.contents(reader, rawItems: rawItems, context: op)
            return Request(
                op: op, feed: feed,
                operation: .resetAppend(token: token, part: Int(part), items: items, sections: sections), req: req,
                client: client)
        case "snapshot", "since", "status", "plugins", "select", "reload", "quarantine", "events", "locate":
            guard channel == .control else {
                throw RowCastError(
                    .unknownOp, "\(op): only taken on the control socket (ROUTER), not on ingest (PULL)", field: "op")
            }
            switch op {
            case "snapshot":
                try reader.rejectUnknown(allowing: Allowed.snapshot)
                let chunked = try reader.optionalBool("chunked") ?? false
                return Request(
                    op: op, feed: try feedName(reader),
                    operation: .snapshot(chunked: chunked, window: try Self.window(reader)), req: req, client: client)
            case "since":
                try reader.rejectUnknown(allowing: Allowed.since)
                let feed = try feedName(reader)
                let epoch = try reader.string("epoch")
                guard let seq = try reader.optionalNumber("seq"), seq >= 0, seq < 9e15, seq == seq.rounded() else {
                    throw RowCastError(
                        .invalidField,
                        "since: \"seq\" must be a whole number from 0, the seq of the last delta applied", field: "seq")
                }
                return Request(
                    op: op, feed: feed, operation: .since(epoch: epoch, seq: UInt64(seq)), req: req, client: client)
            case "select":
                try reader.rejectUnknown(allowing: Allowed.select)
                let feed = try feedName(reader)
                let id = try reader.id("id")
                let action = try reader.optionalString("action") ?? "select"
                guard !action.isEmpty else {
                    throw RowCastError(
                        .invalidField,
                        "select: \"action\" must be a non-empty string, the name of one of the row's actions",
                        field: "action")
                }
                let user = try reader.optionalString("user")
                if let user, user.isEmpty || user.utf8.count > 256 {
                    throw RowCastError(
                        .invalidField,
                        "select: \"user\" must be the user's name, a string of 1 to 256 bytes (or absent: the client itself)",
                        field: "user")
                }
                return Request(
                    op: op, feed: feed,
                    operation: .select(id: id, action: action, value: Self.presentValue(object["value"]), user: user),
                    req: req, client: client)
            case "events":
                try reader.rejectUnknown(allowing: Allowed.events)
                let feed = try feedName(reader)
                let after = try reader.optionalNumber("after") ?? 0
                guard after >= 0, after < 9e15, after == after.rounded() else {
                    throw RowCastError(
                        .invalidField,
                        "events: \"after\" must be a whole number from 0, the event sequence of the last event already handled",
                        field: "after")
                }
                let limit = try reader.optionalNumber("limit") ?? Double(ActionEventLog.maximumPage)
                guard limit >= 1, limit <= Double(ActionEventLog.maximumPage), limit == limit.rounded() else {
                    throw RowCastError(
                        .invalidField,
                        "events: \"limit\" must be a whole number from 1 to \(ActionEventLog.maximumPage)",
                        field: "limit")
                }
                return Request(
                    op: op, feed: feed, operation: .events(after: UInt64(after), limit: Int(limit)), req: req,
                    client: client)
            case "locate":
                try reader.rejectUnknown(allowing: Allowed.byID)
                let feed = try feedName(reader)
                return Request(
                    op: op, feed: feed, operation: .locate(id: try reader.id("id")), req: req, client: client)
            case "status":
                try reader.rejectUnknown(allowing: Allowed.status)
                let after = try reader.optionalString("after")
                return Request(op: op, feed: nil, operation: .status(after: after), req: req, client: client)
            case "reload":
                try reader.rejectUnknown(allowing: Allowed.common)
                return Request(op: op, feed: nil, operation: .reload, req: req, client: client)
            case "quarantine":
                try reader.rejectUnknown(allowing: Allowed.quarantine)
                let feed = object["feed"] == nil ? nil : try feedName(reader)
                let id = object["id"] == nil ? nil : try reader.id("id")
                if id != nil, feed == nil {
                    throw RowCastError(.missingField, "quarantine: an \"id\" needs its \"feed\"", field: "feed")
                }
                let retry = try reader.optionalBool("retry") ?? false
                return Request(
                    op: op, feed: feed, operation: .quarantine(retry: retry, id: id), req: req, client: client)
            default:
                try reader.rejectUnknown(allowing: Allowed.common)
                return Request(op: op, feed: nil, operation: .plugins, req: req, client: client)
            }
        default:
            throw RowCastError(
                .unknownOp,
                "unknown op \"\(op)\" (expected upsert, delete, section, delete_section, reset, reset_begin, reset_append, reset_commit, snapshot, since, status, plugins, select, events, locate, reload or quarantine)",
                field: "op")
        }
    }

    /// The `items` and `sections` of a reset or of a staged reset's part (`items` may be
    /// absent from a part: none).
    private static func contents(
        _ reader: FieldReader, rawItems: [RawItem.Element]?, context: String
    ) throws(RowCastError) -> ([ItemInput], [SectionInput]) {
        if rawItems == nil { _ = try reader.optionalArray("items") }  // throws when mistyped
        let rawItems = rawItems ?? []
        var items: [ItemInput] = []
        items.reserveCapacity(rawItems.count)
        for (index, element) in rawItems.enumerated() {
            switch element {
            case .item(let raw):
                items.append(try Self.item(raw, path: "items[\(index)].", context: context))
            case .other(let value):
                throw RowCastError(
                    .invalidField, "\(context): items[\(index)] must be an object, got \(value.kindName)",
                    field: "items[\(index)]")
            }
        }
        var sections: [SectionInput] = []
        for (index, value) in (try reader.optionalArray("sections") ?? []).enumerated() {
            guard case .object(let sectionObject) = value else {
                throw RowCastError(
                    .invalidField, "\(context): sections[\(index)] must be an object, got \(value.kindName)",
                    field: "sections[\(index)]")
            }
            sections.append(try Self.section(sectionObject, path: "sections[\(index)].", context: context))
        }
        return (items, sections)
    }

    private func feedName(_ reader: FieldReader) throws(RowCastError) -> String {
        let feed = try reader.string("feed")
        guard Names.isValidFeed(feed) else {
            throw reader.invalid("feed", "must be 1 to \(Names.maximumFeedLength) characters of A-Z a-z 0-9 . _ -")
        }
        return feed
    }

    /// Validates an item read at `path`.
    static func item(_ raw: RawItem, path: String, context: String) throws(RowCastError) -> ItemInput {
        let reader = FieldReader(object: raw.members, path: path, context: context)
        let id = try reader.id("id")
        do throws(RowCastError) {
            try reader.rejectUnknown(allowing: Allowed.item)
            let type = try reader.type("type")
            let section = try reader.optionalString("section") ?? ItemInput.defaultSection
            guard Names.isValidID(section) else {
                throw reader.invalid(
                    "section", "must be a non-empty string of at most \(Names.maximumIDLength) bytes, without U+0000")
            }
            let sort = try reader.optionalNumber("sort")
            if case .other(let kind) = raw.data { throw reader.invalid("data", "must be an object, got \(kind)") }
            return ItemInput(id: id, type: type, section: section, sort: sort, json: raw.bytes)
        } catch {
            var error = error
            error.id = id
            throw error
        }
    }

    /// Validates an item stored as JSON (at start, from the durable store).
    public static func item(json: [UInt8], context: String) throws(RowCastError) -> ItemInput {
        let raw: RawItem
        do {
            raw = try JSONParser.read(json) { reader in try RawItem.read(&reader, source: json) }
        } catch {
            throw RowCastError(.invalidJSON, "\(context): stored item is not valid JSON (\(error))")
        }
        return try item(raw, path: "item.", context: context)
    }

    /// Validates a section object found at `path`.
    static func section(_ object: JSONObject, path: String, context: String) throws(RowCastError) -> SectionInput {
        let reader = FieldReader(object: object, path: path, context: context)
        let id = try reader.id("id")
        do throws(RowCastError) {
            try reader.rejectUnknown(allowing: Allowed.sectionMembers)
            let order = try reader.optionalNumber("order")
            let type: String? = object["type"].map { $0.isNull } == false ? try reader.type("type") : nil
            let header = try reader.optionalObject("header")
            return SectionInput(id: id, order: order, type: type, header: header)
        } catch {
            var error = error
            error.id = id
            throw error
        }
    }
}

extension RequestDecoder {
    /// The kind of a JSON value from its first byte, for an error about a mistyped `req`.
    static func kindName(_ first: UInt8?) -> String {
        switch first {
        case UInt8(ascii: "{"): return "object"
        case UInt8(ascii: "["): return "array"
        case UInt8(ascii: "n"): return "null"
        default: return "boolean"
        }
    }

    /// A select's `value`: none when absent or `null` (`JSONValue` takes `nil` as `null`, so
    /// this is spelled out).
    static func presentValue(_ value: JSONValue?) -> JSONValue? {
        guard let value, !value.isNull else { return Optional<JSONValue>.none }
        return value
    }

    /// A snapshot's window: `limit` with `offset` or `around` (or neither: from row 0); nil
    /// when none of the three is given.
    static func window(_ reader: FieldReader) throws(RowCastError) -> SnapshotWindow? {
        let offset = try reader.optionalNumber("offset")
        let around = try reader.optionalString("around")
        guard let limit = try reader.optionalNumber("limit") else {
            guard offset == nil, around == nil else {
                throw RowCastError(
                    .missingField,
                    "snapshot: a window needs \"limit\", the most rows it holds (1 to \(SnapshotWindow.maximumLimit))",
                    field: "limit")
            }
            return nil
        }
        guard limit >= 1, limit <= Double(SnapshotWindow.maximumLimit), limit == limit.rounded() else {
            throw RowCastError(
                .invalidField, "snapshot: \"limit\" must be a whole number from 1 to \(SnapshotWindow.maximumLimit)",
                field: "limit")
        }
        if let around {
            guard offset == nil else {
                throw RowCastError(
                    .invalidField, "snapshot: give \"offset\" or \"around\", not both", field: "around")
            }
            return SnapshotWindow(start: .around(around), limit: Int(limit))
        }
        let start = offset ?? 0
        guard start >= 0, start < 9e15, start == start.rounded() else {
            throw RowCastError(
                .invalidField, "snapshot: \"offset\" must be a whole number from 0 (the first row of the window)",
                field: "offset")
        }
        return SnapshotWindow(start: .offset(Int(start)), limit: Int(limit))
    }

    /// The members each request and object may have, built once: building them per request
    /// hashed a dozen strings and allocated three sets for every item.
    enum Allowed {
        static let common = ["op", "req", "client"]
        static let feed = common + ["feed"]
        static let snapshot = common + ["feed", "chunked", "offset", "around", "limit"]
        static let since = common + ["feed", "epoch", "seq"]
        static let resetAppend = common + ["feed", "reset", "part", "items", "sections"]
        static let resetCommit = common + ["feed", "reset"]
        static let status = common + ["after"]
        static let upsert = common + ["feed", "item"]
        static let byID = common + ["feed", "id"]
        static let section = common + ["feed", "section"]
        static let reset = common + ["feed", "items", "sections"]
        static let select = common + ["feed", "id", "action", "value", "user"]
        static let events = common + ["feed", "after", "limit"]
        static let quarantine = common + ["feed", "id", "retry"]
        static let item = ["data", "id", "section", "sort", "type"]
        static let sectionMembers = ["id", "order", "type", "header"]
    }
}
