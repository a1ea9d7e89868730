import RowCastJSON
import ZeroMQ

/// Acked feed operations over the control socket with a window of requests in flight, retried
/// without duplicates.
///
/// Every request gets `client` (this publisher's ``clientID``) and `req` (1, 2, 3, ...): the
/// daemon remembers its answers by that pair, so a request sent again gets its first answer
/// instead of being applied twice, even after a restart of the daemon.
///
/// Each connection is one DEALER socket that never reconnects by itself (`ZMQ_RECONNECT_IVL`
/// -1, `ZMQ_IMMEDIATE`), so the requests the daemon took from a connection are always a prefix
/// of what was sent on it. When the oldest unanswered request has waited ``AckedPublisherOptions/retryTimeout``,
/// or a send finds the connection gone, the publisher opens a new connection and sends every
/// unanswered request again, oldest first, before anything new: requests are applied in the
/// order they were submitted, once each.
///
/// When the oldest unanswered request has had no answer for ``AckedPublisherOptions/timeout``,
/// it fails with `timeout`, and so does every request sent after it: the daemon answers a
/// connection's requests in order, so none of them can be answered first. A publisher whose
/// daemon is gone thus gives up within about one timeout, not one timeout per request.
///
/// Results come out in submission order (``takeResults()``). Not thread-safe: use one publisher
/// from one thread.
public final class AckedPublisher {
    /// The control endpoint.
    public let endpoint: String
    /// The `client` of every request: unique to this publisher.
    public let clientID: String
    /// Pacing and retries.
    public let options: AckedPublisherOptions
    /// How many times a new connection was opened to send requests again.
    public private(set) var reconnects = 0
    /// Whether any reply came from the daemon (after that, refusals are retried, never reported).
    private var heardFromDaemon = false

    private let context: Context
    /// CURVE credentials for every connection, if any.
    private let curve: CurveCredentials?
    private var socket: ClientSocket?
    private var inFlight: [Pending] = []
    private var finished: [Int: AckedResult] = [:]
    private var nextNumber = 1
    private var nextToDeliver = 1
    /// Refuses requests over the daemon's hard message limit before they are sent.
    private lazy var hardLimit = HardLimitProbe(
        controlEndpoint: endpoint, context: context, timeout: options.timeout, curve: curve)

    /// One sent, unanswered request.
    private struct Pending {
        let number: Int
        let op: String
        let request: JSONValue
        let bytes: [UInt8]
        let firstSent: ContinuousClock.Instant
        var lastSent: ContinuousClock.Instant
        var attempts: Int
    }

    /// A publisher for `endpoint`. `clientID` defaults to `rowcast-` and 16 random hex digits;
    /// one given explicitly must not be used by any other publisher. Requests are numbered from
    /// `firstRequest`: a publisher that sends the same requests again with the same client id
    /// and numbers (a retry after a timeout, even across a daemon restart) gets the first
    /// answers from the daemon's ledger instead of having them applied twice. With `curve`,
    /// every connection uses CURVE.
    public init(
        endpoint: String = RowCastEndpoints.control, options: AckedPublisherOptions = AckedPublisherOptions(),
        clientID: String? = nil, firstRequest: Int = 1, context: Context? = nil, curve: CurveCredentials? = nil
    ) throws(RowCastClientError) {
        self.endpoint = endpoint
        self.curve = curve
        self.options = options
        nextNumber = firstRequest
        nextToDeliver = firstRequest
        self.clientID = clientID ?? Self.randomClientID()
        self.context = if let context { context } else { try ClientSocket.makeContext() }
    }

    /// A new client id: `rowcast-` and 16 random hex digits.
    public static func randomClientID(prefix: String = "rowcast") -> String {
        let hex = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return prefix + "-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Requests sent and not yet answered.
    public var inFlightCount: Int { inFlight.count }

    /// Sends `request` (a JSON object), first waiting for answers while the window is full.
    /// Returns its `req` number. Its result comes out of ``takeResults()``.
    @discardableResult
    public func submit(_ request: JSONValue) throws(RowCastClientError) -> Int {
        guard var object = request.objectValue else {
            throw RowCastClientError(
                code: "invalid_request", message: "a request must be a JSON object, not a \(request.kindName)")
        }
        while inFlight.count >= options.window { try pump() }
        let number = nextNumber
        nextNumber += 1
        object = ControlClient.correlationFirst(object, req: .number(Double(number)), client: .string(clientID))
        let op = object["op"]?.stringValue ?? "request"
        let bytes = JSONValue.object(object).serialized()
        do {
            try hardLimit.check(size: bytes.count, op: op)
        } catch {
            finished[number] = AckedResult(
                number: number, request: .object(object), result: .failure(error), attempts: 0)
            return number
        }
        let now = ContinuousClock.now
        inFlight.append(
            Pending(
                number: number, op: op, request: .object(object),
                bytes: bytes, firstSent: now, lastSent: now, attempts: 0))
        do {
            try transmitLast()
        } catch {
            // The connection could not be made at all (a malformed endpoint, say): fail what
            // waits, this request included.
            abandonAll(error)
        }
        return number
    }

    /// Waits until a request can be submitted without waiting: fewer than `window` requests in
    /// flight. Results may become ready meanwhile (``takeResults()``), timeouts among them.
    public func waitForRoom() throws(RowCastClientError) {
        while inFlight.count >= options.window { try pump() }
    }

    /// Results that are ready, in submission order (a result waits for those before it).
    /// Requests whose time ran out fail first (see ``AckedPublisherOptions/timeout``).
    public func takeResults() -> [AckedResult] {
        expireIfTimedOut()
        var ready: [AckedResult] = []
        while let result = finished.removeValue(forKey: nextToDeliver) {
            ready.append(result)
            nextToDeliver += 1
        }
        return ready
    }

    /// Waits until every submitted request has a result.
    public func flush() throws(RowCastClientError) {
        while !inFlight.isEmpty { try pump() }
    }

    /// Submits every request and waits for all; one result per request, in order, each
    /// handed to `onResult` as soon as it and those before it are known. After a `timeout` the
    /// daemon is taken to be gone: the requests not yet sent fail with `not_sent` at once.
    @discardableResult
    public func publish(
        _ requests: [JSONValue], onResult: (Int, Result<JSONValue, RowCastClientError>) -> Void = { _, _ in }
    ) -> [Result<JSONValue, RowCastClientError>] {
        var source = ArrayRequestSource(requests)
        var results: [Result<JSONValue, RowCastClientError>] = []
        results.reserveCapacity(requests.count)
        publish(from: &source) { index, result in
            results.append(result)
            onResult(index, result)
        }
        return results
    }

    /// Submits the requests of `source` as they come, `window` at a time, and waits for all;
    /// each result goes to `onResult` (with the request's index) as soon as it and those before
    /// it are known. Whenever the source would wait for input, the answers to what was sent
    /// are waited for first, so a producer that pauses sees its acks. After a `timeout` the
    /// daemon is taken to be gone: the request in hand fails with `not_sent`, and so does the
    /// rest of a bounded source, or of a stream as far as it is there without waiting. Returns
    /// how many requests there were.
    @discardableResult
    public func publish(
        from source: inout some RequestSource, onResult: (Int, Result<JSONValue, RowCastClientError>) -> Void
    ) -> Int {
        var results: [Int: Result<JSONValue, RowCastClientError>] = [:]
        var positions: [Int: Int] = [:]
        var delivered = 0
        var count = 0
        var gaveUp: RowCastClientError?
        func collect() {
            for ready in takeResults() {
                if let index = positions.removeValue(forKey: ready.number) { results[index] = ready.result }
                if case .failure(let error) = ready.result, Self.endsThePublish.contains(error.code), gaveUp == nil {
                    gaveUp = error
                }
            }
            while let result = results.removeValue(forKey: delivered) {
                onResult(delivered, result)
                delivered += 1
            }
        }
        reading: while true {
            if gaveUp == nil, source.wouldWait() {
                do { try flush() } catch { abandonAll(error) }
                collect()
            }
            guard let next = source.next() else { break }
            let index = count
            count += 1
            switch next {
            case .failure(let unreadable):
                results[index] = .failure(unreadable)
            case .success(let request):
                if gaveUp == nil {
                    do { try waitForRoom() } catch { abandonAll(error) }
                    collect()
                }
                if let cause = gaveUp {
                    results[index] = .failure(
                        RowCastClientError(
                            code: "not_sent",
                            message: cause.code == "timeout"
                                ? "not sent: rowcastd at \(endpoint) gave an earlier request no answer within \(formatSeconds(options.timeout.seconds))"
                                : "not sent: an earlier request failed with \(cause.code) (\(endpoint))"))
                    collect()
                    // A stream is read on (and counted) only while it would not wait: its
                    // producer may never end.
                    if !source.isBounded, source.wouldWait() { break reading }
                    continue
                }
                do {
                    positions[try submit(request)] = index
                } catch {
                    results[index] = .failure(error)
                }
            }
            collect()
        }
        do { try flush() } catch { abandonAll(error) }
        collect()
        return count
    }

    /// The codes after which ``publish(_:onResult:)`` sends nothing more: the daemon is gone
    /// or not there.
    static let endsThePublish: Set<String> = ["timeout", "not_listening", "handshake_failed"]

    /// Fails every unanswered request with `error`.
    private func abandonAll(_ error: RowCastClientError) {
        for pending in inFlight {
            finished[pending.number] = AckedResult(
                number: pending.number, request: pending.request, result: .failure(error), attempts: pending.attempts)
        }
        inFlight.removeAll()
        socket?.close()
        socket = nil
    }

    /// Closes the connection; unanswered requests are abandoned.
    public func close() {
        socket?.close()
        socket = nil
    }

    deinit { socket?.close() }

    // MARK: - Sending and receiving

    /// Waits for at least one answer, a retry or a give-up.
    private func pump() throws(RowCastClientError) {
        guard let oldest = inFlight.first else { return }
        let retryAt = oldest.lastSent.advanced(by: options.retryTimeout)
        let giveUpAt = oldest.firstSent.advanced(by: options.timeout)
        let wakeAt = min(retryAt, giveUpAt)
        if let socket, ContinuousClock.now < wakeAt {
            let remaining = ContinuousClock.now.duration(to: wakeAt)
            if let frames = try socket.receive(deadline: Deadline(remaining)) {
                handleReply(frames)
                while let more = try socket.receiveNow() { handleReply(more) }
                return
            }
        }
        let now = ContinuousClock.now
        if now >= giveUpAt {
            expireIfTimedOut()
            return
        }
        if now >= retryAt { try reconnect() }
    }

    /// When the oldest unanswered request has waited `timeout`, fails it and every request
    /// after it (answers come in order, so none of those can come first) with `timeout`.
    private func expireIfTimedOut() {
        guard let oldest = inFlight.first, ContinuousClock.now >= oldest.firstSent.advanced(by: options.timeout) else {
            return
        }
        let waited = formatSeconds(options.timeout.seconds)
        for pending in inFlight {
            let message =
                pending.number == oldest.number
                ? "no answer to \(pending.op) (req \(pending.number) of client \(clientID)) from rowcastd at \(endpoint) within \(waited), after \(pending.attempts) attempt(s); it may or may not have been applied"
                : "no answer to \(pending.op) (req \(pending.number) of client \(clientID)) from rowcastd at \(endpoint): req \(oldest.number) before it had none within \(waited), and rowcastd answers in order; it may or may not have been applied"
            let error = RowCastClientError(code: "timeout", message: message)
            finished[pending.number] = AckedResult(
                number: pending.number, request: pending.request, result: .failure(error), attempts: pending.attempts)
        }
        inFlight.removeAll()
        socket?.close()
        socket = nil
    }

    /// Records one reply.
    private func handleReply(_ frames: [[UInt8]]) {
        guard let body = frames.last, let reply = try? JSONParser.parse(body),
            let number = reply["req"]?.integerValue, reply["client"] == nil || reply["client"]?.stringValue == clientID,
            let index = inFlight.firstIndex(where: { $0.number == number })
        else { return }
        heardFromDaemon = true
        let pending = inFlight.remove(at: index)
        let result = Result<JSONValue, RowCastClientError> { () throws(RowCastClientError) in
            try ControlClient.check(reply)
        }
        finished[number] = AckedResult(
            number: number, request: pending.request, result: result, attempts: pending.attempts)
    }

    /// Sends the newest request on the current connection, opening one (and resending
    /// everything unanswered) when there is none or it is gone.
    private func transmitLast() throws(RowCastClientError) {
        guard let socket else {
            try reconnect()
            return
        }
        if try socket.send([[], inFlight[inFlight.count - 1].bytes], deadline: Deadline(options.connectTimeout)) {
            inFlight[inFlight.count - 1].attempts += 1
        } else {
            try reconnect()
        }
    }

    /// Drops the connection and sends every unanswered request again, oldest first, on new
    /// ones until one takes them all (or the oldest runs out of time).
    private func reconnect() throws(RowCastClientError) {
        while let oldest = inFlight.first {
            socket?.close()
            socket = nil
            reconnects += 1
            let watch = options.reportsRefusal && !heardFromDaemon
            let fresh = try ClientSocket(
                context: context, type: .dealer, endpoint: endpoint, curve: curve, watchConnection: watch
            ) { socket throws(ZeroMQError) in
                try socket.setOption(.immediate, true)
                try socket.setOption(.reconnectInterval, -1)
                try socket.setOption(.sendHighWaterMark, max(1000, 2 * options.window))
                try socket.setOption(.receiveHighWaterMark, max(1000, 2 * options.window))
            }
            socket = fresh
            var sentAll = true
            let now = ContinuousClock.now
            for index in inFlight.indices {
                guard try fresh.send([[], inFlight[index].bytes], deadline: Deadline(options.connectTimeout)) else {
                    sentAll = false
                    break
                }
                inFlight[index].lastSent = now
                inFlight[index].attempts += 1
            }
            if sentAll { return }
            if ContinuousClock.now >= oldest.firstSent.advanced(by: options.timeout) { return }
        }
    }
}

@available(*, unavailable)
extension AckedPublisher: Sendable {}
