import NIOCore

/// The deadlines and the head-size limit of one HTTP connection, as a pure state machine: the
/// handler (`HTTPConnectionGuard`) reports what happens, with the time, and does what the
/// answers say. No clock, no I/O (`HTTPConnectionStateTests`).
///
/// A connection starts receiving a head. When the head's end arrives (or the HTTP decoder
/// reports a head, for one that came behind another) it is exchanging: a request is read or
/// answered, or the connection became a WebSocket, and no head deadline runs. When every request
/// has been answered it is idle until the next byte, which starts the next head. An answer of
/// the guard's own (408, 431) leaves it lingering: it drops what arrives until the client closes
/// or `HTTPConnectionLimits.lingerTime` passes. Independently of all this, data that waits for
/// the client (the channel is not writable) for `writeTimeout` resets it.
struct HTTPConnectionState {
    /// Where the connection is.
    enum Phase: Equatable, Sendable {
        /// A head is arriving (or is awaited, on a new connection): `bytes` of it so far.
        case receivingHead(since: NIODeadline, bytes: Int)
        /// A request is being read or answered, or the connection was upgraded.
        case exchanging
        /// Every request is answered; nothing of the next one has arrived.
        case idle(since: NIODeadline)
        /// Answered by the guard and half closed; what arrives is dropped until `until`.
        case lingering(until: NIODeadline)
        /// Closed, or closing.
        case closed
    }

    /// What to do with bytes that arrived.
    enum ReadAction: Equatable, Sendable {
        /// Pass them on to the HTTP decoder.
        case forward
        /// Drop them.
        case discard
        /// Drop them, answer 431 and close the output (the head is too large).
        case refuseTooLarge
    }

    /// What to do when a deadline passed.
    enum TimerAction: Equatable, Sendable {
        /// Nothing is due.
        case none
        /// Answer 408 and close the output: a head arrived in part only.
        case answerTimeout
        /// Close: a new connection sent nothing within the header timeout.
        case closeSilent
        /// Close: a kept-alive connection had nothing to do.
        case closeIdle
        /// Reset: the client took no data for the write timeout.
        case resetStalled
        /// Close: the lingering after an answer is over.
        case close
    }

    /// The limits applied.
    let limits: HTTPConnectionLimits
    /// Where the connection is.
    private(set) var phase: Phase
    /// Since when data has waited for the client, if it does.
    private(set) var stalledSince: NIODeadline?
    /// Where the head being received ends, as far as it has arrived.
    private var scanner = HTTPHeadScanner()
    /// Whether `HTTPExchangeObserver` reported: Hummingbird has taken the connection over (it
    /// answers malformed requests itself from then on).
    private(set) var isObserved = false

    /// A connection opened at `now`, receiving its first head.
    init(limits: HTTPConnectionLimits, openedAt now: NIODeadline) {
        self.limits = limits
        self.phase = .receivingHead(since: now, bytes: 0)
    }

    /// `bytes` arrived at `now`.
    mutating func received<Bytes: Collection<UInt8>>(_ bytes: Bytes, at now: NIODeadline) -> ReadAction {
        let since: NIODeadline
        let sofar: Int
        switch phase {
        case .exchanging: return .forward
        case .lingering, .closed: return .discard
        case .idle:
            scanner = HTTPHeadScanner()
            (since, sofar) = (now, 0)
        case .receivingHead(let start, let bytes):
            (since, sofar) = (start, bytes)
        }
        let end = scanner.scan(bytes)
        let total = sofar + (end ?? bytes.count)
        if total > limits.maxHeadBytes {
            phase = .lingering(until: now + TimeAmount(HTTPConnectionLimits.lingerTime))
            return .refuseTooLarge
        }
        if end != nil {
            phase = .exchanging
        } else {
            phase = .receivingHead(since: since, bytes: total)
        }
        return .forward
    }

    /// The HTTP decoder read a whole head (one that came behind another request, whose end the
    /// scan did not look for).
    mutating func headDecoded() {
        isObserved = true
        switch phase {
        case .receivingHead, .idle: phase = .exchanging
        case .exchanging, .lingering, .closed: break
        }
    }

    /// Every request read so far was answered, at `now`.
    mutating func exchangesFinished(at now: NIODeadline) {
        isObserved = true
        if case .exchanging = phase { phase = .idle(since: now) }
    }

    /// The decoder found a request malformed at `now`: whether to answer it (400 or 431) and
    /// linger. Only before Hummingbird has taken the connection over; nothing else answers then.
    mutating func malformed(at now: NIODeadline) -> Bool {
        switch phase {
        case .lingering, .closed: return false
        case .receivingHead, .exchanging, .idle:
            guard !isObserved else { return false }
            phase = .lingering(until: now + TimeAmount(HTTPConnectionLimits.lingerTime))
            return true
        }
    }

    /// The channel became writable (data no longer waits) or not, at `now`.
    mutating func writabilityChanged(isWritable: Bool, at now: NIODeadline) {
        stalledSince = isWritable ? nil : (stalledSince ?? now)
    }

    /// The client closed its side: whether to close now (when lingering; otherwise the HTTP
    /// handlers decide).
    mutating func inputClosed() -> Bool {
        guard case .lingering = phase else { return false }
        phase = .closed
        return true
    }

    /// The connection closed.
    mutating func closed() {
        phase = .closed
        stalledSince = nil
    }

    /// The earliest time something is due, if any: none once closed; while lingering, only its
    /// end (the write stall no longer counts).
    var deadline: NIODeadline? {
        let phaseDeadline: NIODeadline?
        switch phase {
        case .closed: return nil
        case .lingering(let until): return until
        case .receivingHead(let since, _): phaseDeadline = since + TimeAmount(limits.headerTimeout)
        case .idle(let since): phaseDeadline = since + TimeAmount(limits.idleTimeout)
        case .exchanging: phaseDeadline = nil
        }
        let stallDeadline = stalledSince.map { $0 + TimeAmount(limits.writeTimeout) }
        return [phaseDeadline, stallDeadline].compactMap { $0 }.min()
    }

    /// What is due at `now`.
    mutating func timerFired(at now: NIODeadline) -> TimerAction {
        if let stalledSince, now >= stalledSince + TimeAmount(limits.writeTimeout) {
            switch phase {
            case .lingering, .closed: break
            case .receivingHead, .exchanging, .idle:
                phase = .closed
                return .resetStalled
            }
        }
        switch phase {
        case .receivingHead(let since, let bytes) where now >= since + TimeAmount(limits.headerTimeout):
            if bytes == 0 {
                phase = .closed
                return .closeSilent
            }
            phase = .lingering(until: now + TimeAmount(HTTPConnectionLimits.lingerTime))
            return .answerTimeout
        case .idle(let since) where now >= since + TimeAmount(limits.idleTimeout):
            phase = .closed
            return .closeIdle
        case .lingering(let until) where now >= until:
            phase = .closed
            return .close
        default:
            return .none
        }
    }
}
