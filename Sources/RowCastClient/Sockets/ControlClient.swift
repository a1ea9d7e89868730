import RowCastJSON
import ZeroMQ

/// A connection to the daemon's control socket (ROUTER) through a DEALER: acked feed
/// operations and queries, each reply matched to its request by `req`.
///
/// Every wait is bounded by a timeout; a timeout error names the endpoint. Not thread-safe:
/// use one client from one thread.
public final class ControlClient {
    /// The control endpoint connected to.
    public var endpoint: String { socket.endpoint }
    /// How long a request waits for its reply unless told otherwise.
    public var timeout: Duration
    /// Sent as `client` in every request that has none (the daemon echoes it in events).
    /// With generated `req` numbers (1, 2, ...) the daemon takes `client` and `req` as the
    /// identity of an acked change and answers a repeat with the first answer: never give two
    /// clients the same name (``AckedPublisher/randomClientID(prefix:)`` makes unique ones).
    public var clientName: String?
    /// The DEALER socket.
    let socket: ClientSocket
    /// The number of the next generated `req`.
    private var nextRequestNumber = 1
    /// Refuses requests over the daemon's hard message limit before they are sent.
    private lazy var hardLimit = HardLimitProbe(
        controlEndpoint: socket.endpoint, context: nil, timeout: timeout, curve: curve)
    /// The CURVE credentials it connects with, if any.
    private let curve: CurveCredentials?

    /// A client connected to `endpoint` (connecting does not wait for the daemon), with
    /// CURVE when `curve` is given. With `reportsRefusal`, a request fails at once with
    /// `not_listening` when nothing listens at a tcp or ipc `endpoint`, and with
    /// `handshake_failed` when the daemon refuses the handshake (CURVE), instead of waiting
    /// for `timeout`; once connected, a lost connection still waits for `timeout` (the daemon
    /// may be restarting).
    public init(
        endpoint: String = RowCastEndpoints.control, context: Context? = nil, timeout: Duration = .seconds(5),
        clientName: String? = nil, curve: CurveCredentials? = nil, reportsRefusal: Bool = false
    ) throws(RowCastClientError) {
        socket = try ClientSocket(
            context: context, type: .dealer, endpoint: endpoint, curve: curve, watchConnection: reportsRefusal)
        self.timeout = timeout
        self.clientName = clientName
        self.curve = curve
    }

    /// Sends `body` and waits for its reply.
    ///
    /// A `req` is added when `body` has none. Replies to other (earlier, timed-out) requests
    /// are skipped.
    /// - Returns: the reply, whose `ok` is `true`.
    /// - Throws: a ``RowCastClientError`` with the daemon's code, message and field for an
    ///   `ok:false` reply; `timeout` when no reply came within `timeout` (default
    ///   ``timeout``); `socket_error` or `invalid_reply` otherwise.
    public func request(_ body: JSONValue, timeout: Duration? = nil) throws(RowCastClientError) -> JSONValue {
        let deadline = Deadline(timeout ?? self.timeout)
        let (req, op) = try send(body, deadline: deadline, limit: timeout ?? self.timeout)
        while true {
            guard let reply = try receiveReply(deadline: deadline) else {
                throw .timeout(endpoint: endpoint, seconds: (timeout ?? self.timeout).seconds, op: op)
            }
            // A reply with no `req` is one the daemon could not read the request of: ours.
            guard reply["req"].map({ Self.isSameReq($0, req) }) ?? true else { continue }
            return try Self.check(reply)
        }
    }

    /// Sends every request before reading replies (pipelining), and returns one result per
    /// request, in order. Requests still unanswered when no reply has come for `timeout`
    /// fail with `timeout`. At most `window` requests are in flight at once.
    public func requests(
        _ bodies: [JSONValue], timeout: Duration? = nil, window: Int = 1000
    ) -> [Result<JSONValue, RowCastClientError>] {
        let limit = timeout ?? self.timeout
        var results = [Result<JSONValue, RowCastClientError>?](repeating: nil, count: bodies.count)
        var outstanding: [(index: Int, req: JSONValue, op: String)] = []
        var nextToSend = 0
        var deadline = Deadline(limit)
        while nextToSend < bodies.count || !outstanding.isEmpty {
            while nextToSend < bodies.count, outstanding.count < max(window, 1) {
                do {
                    let (req, op) = try send(bodies[nextToSend], deadline: deadline, limit: limit)
                    outstanding.append((nextToSend, req, op))
                } catch {
                    results[nextToSend] = .failure(error)
                }
                nextToSend += 1
            }
            guard !outstanding.isEmpty else { continue }
            let reply: JSONValue?
            do {
                reply = try receiveReply(deadline: deadline)
            } catch {
                for entry in outstanding { results[entry.index] = .failure(error) }
                outstanding.removeAll()
                continue
            }
            guard let reply else {
                for entry in outstanding {
                    results[entry.index] = .failure(.timeout(endpoint: endpoint, seconds: limit.seconds, op: entry.op))
                }
                outstanding.removeAll()
                continue
            }
            deadline = Deadline(limit)
            // Replies come back in request order; one without `req` belongs to the oldest.
            let position = reply["req"].map { req in outstanding.firstIndex { Self.isSameReq($0.req, req) } } ?? 0
            guard let position else { continue }
            let entry = outstanding.remove(at: position)
            results[entry.index] = Result { () throws(RowCastClientError) in try Self.check(reply) }
        }
        return results.map {
            $0 ?? .failure(RowCastClientError(code: "internal_error", message: "request was not sent"))
        }
    }

    /// Closes the socket; later requests fail.
    public func close() { socket.close() }

    // MARK: - Typed requests

    /// Inserts or replaces `item` in `feed`.
    public func upsert(feed: String, item: JSONValue) throws(RowCastClientError) -> RowCastAck {
        RowCastAck(reply: try request(RowCastRequest.upsert(feed: feed, item: item)))
    }

    /// Deletes the item `id` from `feed` (`not_found` when there is none).
    public func delete(feed: String, id: String) throws(RowCastClientError) -> RowCastAck {
        RowCastAck(reply: try request(RowCastRequest.delete(feed: feed, id: id)))
    }

    /// Declares a section of `feed`, or replaces its `order`, `type` and `header`.
    public func section(feed: String, section: JSONValue) throws(RowCastClientError) -> RowCastAck {
        RowCastAck(reply: try request(RowCastRequest.section(feed: feed, section: section)))
    }

    /// Deletes the section `id` of `feed` with all its items.
    public func deleteSection(feed: String, id: String) throws(RowCastClientError) -> RowCastAck {
        RowCastAck(reply: try request(RowCastRequest.deleteSection(feed: feed, id: id)))
    }

    /// Replaces the whole contents of `feed`.
    public func reset(
        feed: String, items: [JSONValue], sections: [JSONValue]? = nil
    ) throws(RowCastClientError) -> RowCastAck {
        RowCastAck(reply: try request(RowCastRequest.reset(feed: feed, items: items, sections: sections)))
    }

    /// The `snapshot` reply for `feed`, its parts joined into one (``SnapshotAssembler``);
    /// `timeout` bounds the wait for each part.
    public func snapshot(feed: String) throws(RowCastClientError) -> JSONValue {
        try snapshot(feed: feed, request: RowCastRequest.snapshot(feed: feed))
    }

    /// The `snapshot` reply for the window of at most `limit` rows of `feed` from row `offset`
    /// (0 when nil), or centred on the row of item `around`; its `window` member says which.
    public func snapshot(
        feed: String, offset: Int?, around: String?, limit: Int
    ) throws(RowCastClientError) -> JSONValue {
        try snapshot(
            feed: feed, request: RowCastRequest.snapshot(feed: feed, offset: offset, around: around, limit: limit))
    }

    private func snapshot(feed: String, request: JSONValue) throws(RowCastClientError) -> JSONValue {
        var deadline = Deadline(timeout)
        let (req, op) = try send(request, deadline: deadline, limit: timeout)
        var assembler = SnapshotAssembler()
        while true {
            guard let reply = try receiveReply(deadline: deadline) else {
                throw .timeout(endpoint: endpoint, seconds: timeout.seconds, op: op)
            }
            guard reply["req"].map({ Self.isSameReq($0, req) }) ?? true else { continue }
            if let whole = try assemble(try Self.check(reply), into: &assembler, feed: feed) { return whole }
            deadline = Deadline(timeout)
        }
    }

    /// Adds a snapshot part to `assembler`; the whole snapshot once it is complete.
    func assemble(
        _ reply: JSONValue, into assembler: inout SnapshotAssembler, feed: String
    ) throws(RowCastClientError) -> JSONValue? {
        do {
            return try assembler.add(reply)
        } catch {
            throw .invalidReply(endpoint: endpoint, "to snapshot of feed \(feed) is not a valid snapshot (\(error))")
        }
    }

    /// A replica of `feed` loaded from a fresh snapshot.
    public func replica(feed: String) throws(RowCastClientError) -> FeedReplica {
        let reply = try snapshot(feed: feed)
        do {
            return try FeedReplica(snapshot: reply)
        } catch {
            throw .invalidReply(endpoint: endpoint, "to snapshot of feed \(feed) is not a valid snapshot (\(error))")
        }
    }

    /// The `since` reply for `feed`: the deltas after `seq` of `epoch` when the daemon's
    /// history still holds them (`"covered":true`), or `"covered":false` and why.
    public func since(feed: String, epoch: String, seq: Int) throws(RowCastClientError) -> JSONValue {
        try request(RowCastRequest.since(feed: feed, epoch: epoch, seq: seq))
    }

    /// The `status` reply, with every feed: when the daemon lists them in pages (`more`),
    /// the pages that follow are requested and their feeds appended.
    public func status() throws(RowCastClientError) -> JSONValue {
        var reply = try request(RowCastRequest.status())
        guard var whole = reply.objectValue else { return reply }
        var feeds = reply["feeds"]?.arrayValue ?? []
        while reply["more"]?.boolValue == true, let next = reply["next"]?.stringValue {
            reply = try request(RowCastRequest.status(after: next))
            feeds.append(contentsOf: reply["feeds"]?.arrayValue ?? [])
        }
        whole["more"] = nil
        whole["next"] = nil
        whole["feeds"] = .array(feeds)
        return .object(whole)
    }

    /// The `plugins` reply.
    public func plugins() throws(RowCastClientError) -> JSONValue {
        try request(RowCastRequest.plugins())
    }

    /// The `quarantine` reply: the items whose plugin crashed or hung on them; with `retry`,
    /// after rendering them again (`retried` says how many were tried).
    public func quarantine(
        retry: Bool = false, feed: String? = nil, id: String? = nil
    ) throws(RowCastClientError) -> JSONValue {
        try request(RowCastRequest.quarantine(retry: retry, feed: feed, id: id))
    }

    /// The `reload` reply: the daemon re-read its configuration and rescanned its plugin
    /// directories. A reload that failed (`reload_failed`) is thrown; the daemon kept running
    /// as it was.
    public func reload() throws(RowCastClientError) -> JSONValue {
        try request(RowCastRequest.reload())
    }

    /// Drops `feed` with its history; returns the reply, whose `dropped` says what it held.
    public func drop(feed: String) throws(RowCastClientError) -> JSONValue {
        try request(RowCastRequest.drop(feed: feed))
    }

    /// Runs `action` of the row `id` of `feed`, with `value` for an edit or a toggle; returns
    /// the reply: `event` (the action event the daemon also published), `change` (`update`,
    /// `delete` or null), the feed's `seq` after the change and the event's `eventSeq`. With
    /// `user`, the action runs as that user (the client needs `act_as` on the feed).
    public func select(
        feed: String, id: String, action: String = "select", value: JSONValue? = nil, user: String? = nil
    ) throws(RowCastClientError) -> JSONValue {
        try request(RowCastRequest.select(feed: feed, id: id, action: action, value: value, user: user))
    }

    // MARK: - Framing

    /// Sends `[empty, body]` with a `req` (and `client`) added; returns the `req` and `op`.
    /// `req` and `client` go first, so that rowcastd can echo them in a `too_large` reply,
    /// which it writes from the first bytes of the message only.
    func send(
        _ body: JSONValue, deadline: Deadline, limit: Duration
    ) throws(RowCastClientError) -> (req: JSONValue, op: String) {
        guard let object = body.objectValue else {
            throw RowCastClientError(
                code: "invalid_request", message: "a request must be a JSON object, not a \(body.kindName)")
        }
        let op = object["op"]?.stringValue ?? "request"
        let req: JSONValue
        if let existing = object["req"] {
            req = existing
        } else {
            req = .number(Double(nextRequestNumber))
            nextRequestNumber += 1
        }
        let client = object["client"] ?? clientName.map(JSONValue.string)
        let bytes = JSONValue.object(Self.correlationFirst(object, req: req, client: client)).serialized()
        try hardLimit.check(size: bytes.count, op: op)
        guard try socket.send([[], bytes], deadline: deadline) else {
            throw .timeout(endpoint: endpoint, seconds: limit.seconds, op: op)
        }
        return (req, op)
    }

    /// The next reply (`[empty, reply]`, or `[reply]`), parsed; `nil` at the deadline.
    func receiveReply(deadline: Deadline) throws(RowCastClientError) -> JSONValue? {
        guard let frames = try socket.receive(deadline: deadline) else { return nil }
        guard let body = frames.last, frames.count <= 2, frames.count == 1 || frames[0].isEmpty else {
            throw .invalidReply(endpoint: endpoint, "has \(frames.count) frames, not [empty, reply]")
        }
        do {
            return try JSONParser.parse(body)
        } catch {
            throw .invalidReply(endpoint: endpoint, "is not JSON (\(error))")
        }
    }

    /// `object` with `req` (and `client`, when given) as its first members.
    static func correlationFirst(_ object: JSONObject, req: JSONValue, client: JSONValue?) -> JSONObject {
        var ordered = JSONObject()
        ordered.append(key: "req", value: req)
        if let client { ordered.append(key: "client", value: client) }
        for entry in object.entries where entry.key != "req" && entry.key != "client" {
            ordered.append(key: entry.key, value: entry.value)
        }
        return ordered
    }

    /// Whether two `req` values are one request id: the same JSON text, as the daemon compares
    /// them (numbers keep their text, so `123456789012345678` and `123456789012345679` differ).
    static func isSameReq(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        lhs.serialized() == rhs.serialized()
    }

    /// The reply when `ok` is true; the reply's error otherwise.
    static func check(_ reply: JSONValue) throws(RowCastClientError) -> JSONValue {
        if reply["ok"]?.boolValue == true { return reply }
        guard let error = reply["error"] else {
            throw RowCastClientError(
                code: "invalid_reply", message: "a reply with neither \"ok\":true nor an error: \(reply.compactText)",
                reply: reply)
        }
        throw RowCastClientError(errorObject: error, reply: reply)
    }
}

@available(*, unavailable)
extension ControlClient: Sendable {}
