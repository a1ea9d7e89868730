import CoreMetrics
import Logging
import RowCastEngine
import RowCastJSON
import RowCastSupport
import ZeroMQ

/// The front of several engine loops (`engine.threads`; docs/OPERATIONS.md, "Engine threads"):
/// it owns the public ingest (PULL) and control (ROUTER) sockets and hands each message to the
/// loop that serves its feed's partition, over `inproc://`, reading no more of it than the
/// feed name (`RequestRouting`). Requests that name no feed go to the first loop, except those
/// every loop answers (`FanOutReplies`). Replies come back the same way.
///
/// A loop's control requests travel as `[header, client routing frames..., "", body...]` on a
/// DEALER: the header (`FrontHeader`) says whether the client's envelope had its empty
/// delimiter, and which fan-out the request belongs to, so the reply goes back exactly as the
/// loop alone would have sent it.
///
/// With CURVE the front serves the ZAP requests of the public sockets and names each
/// message's client to its loop: in the header of a control request, in a first frame of an
/// ingest message (`FrontIngestFrames`); each loop then checks the grants as one rowcastd does.
///
/// Not `Sendable`: its sockets belong to the thread that runs it.
final class FrontRouter {
    private let logger: Logger
    private let configuration: DaemonConfiguration
    private let ingest: Socket
    private let control: Socket
    private let pushes: [Socket]
    private let dealers: [Socket]
    private let poller = Poller()
    private let reload: SharedReload?
    private let curve: SharedCurve?
    private let zap: ZAPHandler?
    private var fanOuts: [UInt64: FanOut] = [:]
    private var nextFanOut: UInt64 = 1
    /// A message a loop's full queue did not take yet; reading waits until it has gone.
    private var held: Held?
    private let droppedReplies: Counter?
    private var dropped = 0
    /// The public endpoints, for the merged `status`.
    let endpoints: JSONValue

    /// What waits for room in a loop's queue.
    private enum Held {
        /// A message for one loop.
        case one(Socket, [[UInt8]])
        /// A request for every loop: it goes once every loop's queue has room.
        case everyLoop([[UInt8]], fanOut: UInt64, op: String)
    }

    /// A request every loop answers, waiting for their replies.
    private struct FanOut {
        var op: String
        var replies: [[UInt8]?]
    }

    /// A front for `loops` loops over `context`, its public sockets already bound; each
    /// `reload` request is counted in `reload` before the loops get it.
    init(
        configuration: DaemonConfiguration, context: Context, loops: Int, ingest: Socket, control: Socket,
        endpoints: JSONValue, metrics: (any MetricsFactory)?, logger: Logger, reload: SharedReload? = nil,
        curve: SharedCurve? = nil, zap: ZAPHandler? = nil
    ) throws {
        self.configuration = configuration
        self.reload = reload
        self.curve = curve
        self.zap = zap
        self.ingest = ingest
        self.control = control
        self.endpoints = endpoints
        self.logger = logger
        droppedReplies = metrics.map { Counter(label: DaemonMetricNames.droppedReplies, factory: $0) }
        var pushes: [Socket] = []
        var dealers: [Socket] = []
        for index in 0..<loops {
            let loop = EngineLoopSlot.endpoints(of: index)
            let push = try Socket(context: context, type: .push)
            try push.setOption(.linger, 0)
            try push.setOption(.sendHighWaterMark, configuration.receiveHighWaterMark)
            try push.connect(loop.ingest)
            pushes.append(push)
            let dealer = try Socket(context: context, type: .dealer)
            try dealer.setOption(.linger, 0)
            try dealer.setOption(.sendHighWaterMark, configuration.receiveHighWaterMark)
            try dealer.setOption(.receiveHighWaterMark, 0)
            try dealer.connect(loop.control)
            dealers.append(dealer)
        }
        self.pushes = pushes
        self.dealers = dealers
        poller.register(ingest, for: .readable)
        poller.register(control, for: .readable)
        for dealer in dealers { poller.register(dealer, for: .readable) }
        if let socket = zap?.socket { poller.register(socket, for: .readable) }
    }

    /// Whether a message read from the public sockets still waits for room in a loop's queue.
    var isHolding: Bool { held != nil }

    /// One pass: waits at most `timeoutMilliseconds` for a message, then moves what arrived.
    /// With `reading` false (a stop began), the loops' replies move, and a message already read
    /// goes on to its loop, but nothing more is read.
    func pass(timeoutMilliseconds: Int, reading: Bool) throws {
        let canRead = reading && held == nil
        poller.register(ingest, for: canRead ? .readable : [])
        poller.register(control, for: canRead ? .readable : [])
        _ = try poller.poll(timeoutMilliseconds: held == nil ? timeoutMilliseconds : 1)
        if let zap, let curve, let socket = zap.socket, poller.isReadable(socket) {
            // The keys in force: those read at the start or by the last reload every loop applied.
            zap.keyring = curve.keyring
            try zap.serve()
        }
        for (index, dealer) in dealers.enumerated() where poller.isReadable(dealer) {
            _ = try forwardReplies(from: dealer, loop: index)
        }
        if let waiting = held {
            guard try send(waiting) else { return }
            held = nil
        }
        guard reading else { return }
        if poller.isReadable(ingest) { try forwardIngest() }
        if held == nil, poller.isReadable(control) { try forwardRequests() }
    }

    /// Moves every reply the loops sent already (at the end of a stop).
    func drainReplies() throws {
        var moved = 1
        while moved > 0 {
            moved = 0
            for (index, dealer) in dealers.enumerated() { moved += try forwardReplies(from: dealer, loop: index) }
        }
    }

    /// Sends what was held; false when a queue still has no room.
    private func send(_ waiting: Held) throws -> Bool {
        switch waiting {
        case .one(let socket, let frames):
            return try socket.send(frames, dontWait: true)
        case .everyLoop(let frames, let fanOut, let op):
            // Every loop takes it, or none yet: a copy that reached some loops only would be
            // applied there and never answered.
            guard dealers.allSatisfy({ (try? $0.events)?.contains(.writable) == true }) else { return false }
            fanOuts[fanOut] = FanOut(op: op, replies: Array(repeating: nil, count: dealers.count))
            for dealer in dealers where !(try dealer.send(frames, dontWait: true)) {
                preconditionFailure("FrontRouter: a DEALER with room refused a message")
            }
            return true
        }
    }

    /// Closes the loops' side (the public sockets belong to the group).
    func close() {
        for socket in pushes + dealers { socket.close() }
    }

    private func forwardIngest() throws {
        var moved = 0
        while moved < 1000, let (frames, userID) = try receive(ingest) {
            moved += 1
            let partition = frames.first.flatMap { RequestRouting(body: $0).partition }
            let loop = partition.map { EngineLoopSlot.loop(serving: $0, count: pushes.count) } ?? 0
            let frames = curve == nil ? frames : FrontIngestFrames.wrap(frames, userID: userID)
            guard try pushes[loop].send(frames, dontWait: true) else {
                held = .one(pushes[loop], frames)
                return
            }
        }
    }

    private func forwardRequests() throws {
        var moved = 0
        while moved < 1000, let (frames, userID) = try receive(control) {
            moved += 1
            let envelope = ControlEnvelope(frames: frames)
            let delimited = envelope.routing.count > 1 && envelope.routing.last?.isEmpty == true
            let identities = delimited ? Array(envelope.routing.dropLast()) : envelope.routing
            let bodyFrames = Array(frames.dropFirst(envelope.routing.count))
            let routing = RequestRouting(body: envelope.body)
            let everyLoop = FanOutReplies.goesToEveryLoop(op: routing.op, namesFeed: routing.feed != nil)
            let fanOut = everyLoop ? nextFanOut : 0
            let header = FrontHeader(delimited: delimited, fanOut: fanOut, userID: userID ?? "")
            let message = [header.bytes] + identities + [[]] + bodyFrames
            let waiting: Held
            if everyLoop {
                // One reload decided for every loop: counted before any loop can read it.
                if routing.op == "reload" { reload?.request() }
                nextFanOut &+= 1
                waiting = .everyLoop(message, fanOut: fanOut, op: routing.op ?? "")
            } else {
                let loop = routing.partition.map { EngineLoopSlot.loop(serving: $0, count: dealers.count) } ?? 0
                waiting = .one(dealers[loop], message)
            }
            guard try send(waiting) else {
                held = waiting
                return
            }
        }
    }

    /// One waiting message of `socket` and, with CURVE, its connection's User-Id.
    private func receive(_ socket: Socket) throws -> (frames: [[UInt8]], userID: String?)? {
        guard curve != nil else { return try socket.receiveMultipart(dontWait: true).map { ($0, nil) } }
        return try socket.receiveMultipart(property: Daemon.userIDProperty, dontWait: true).map {
            ($0.frames, $0.property)
        }
    }

    /// The `curve` counts of `status` that the front and the proxy keep: connections admitted
    /// and refused, subscriptions refused, and on a cluster node the other nodes' connections.
    private var curveCounts: JSONObject? {
        guard let zap, let curve else { return nil }
        return [
            "admitted": .number(Double(zap.admitted)), "refused": .number(Double(zap.refused)),
            "refusedSubscriptions": .number(Double(curve.refusedSubscriptions)),
            "admittedNodes": .number(Double(zap.admittedNodes)),
        ]
    }

    /// Moves up to 1,000 replies of `loop` to their clients; returns how many.
    private func forwardReplies(from dealer: Socket, loop: Int) throws -> Int {
        var moved = 0
        while moved < 1000, let frames = try dealer.receiveMultipart(dontWait: true) {
            moved += 1
            guard let header = frames.first.flatMap(FrontHeader.init(bytes:)),
                let delimiter = frames.dropFirst().firstIndex(where: \.isEmpty)
            else { continue }
            let identities = Array(frames[1..<delimiter])
            var body = Array(frames[(delimiter + 1)...])
            if header.fanOut != 0 {
                guard var fanOut = fanOuts[header.fanOut], let reply = body.first else { continue }
                fanOut.replies[loop] = reply
                guard fanOut.replies.allSatisfy({ $0 != nil }) else {
                    fanOuts[header.fanOut] = fanOut
                    continue
                }
                fanOuts[header.fanOut] = nil
                body = [
                    FanOutReplies.merge(
                        op: fanOut.op, fanOut.replies.map { $0! }, endpoints: endpoints, frontDropped: dropped,
                        curveCounts: curveCounts)
                ]
            }
            sendReply(identities + (header.delimited ? [[]] : []) + body)
        }
        return moved
    }

    /// Sends a reply to its client; a client gone or not reading loses it, counted as the loops
    /// count theirs (`rowcast_replies_dropped_total`).
    private func sendReply(_ frames: [[UInt8]]) {
        if (try? control.send(frames, dontWait: true)) == true { return }
        dropped += 1
        droppedReplies?.increment()
        if dropped == 1 || dropped.isMultiple(of: 10_000) {
            logger.warning(
                "reply dropped: a client is gone or not reading its replies (limits.client_reply_queue reached)",
                metadata: ["dropped": "\(dropped)"])
        }
    }
}

/// The first frame of a request the front hands a loop, echoed in its reply: whether the
/// client's envelope had its empty delimiter, the fan-out it belongs to (0: none), and with
/// CURVE the client the connection's User-Id names. Only the front reaches a loop's
/// `inproc://` sockets, so no client can write this frame.
struct FrontHeader: Equatable {
    /// Whether the client's envelope ended with an empty frame (REQ, or DEALER with one).
    let delimited: Bool
    /// The request every loop answers that this is a copy of, or 0.
    let fanOut: UInt64
    /// The User-Id of the client's connection: its CURVE client's name, or "" (CURVE off, or
    /// an `ipc://` connection, which is not checked).
    let userID: String

    /// A header from its parts.
    init(delimited: Bool, fanOut: UInt64, userID: String = "") {
        self.delimited = delimited
        self.fanOut = fanOut
        self.userID = userID
    }

    /// The header `bytes` hold, or nil when they hold none.
    init?(bytes: [UInt8]) {
        guard bytes.count >= 9, bytes[0] == 0x64 || bytes[0] == 0x6E else { return nil }
        delimited = bytes[0] == 0x64
        fanOut = bytes[1..<9].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        userID = String(decoding: bytes[9...], as: UTF8.self)
    }

    /// "d" or "n", then the fan-out number in 8 bytes, little-endian, then the User-Id.
    var bytes: [UInt8] {
        [delimited ? 0x64 : 0x6E] + (0..<8).map { UInt8(truncatingIfNeeded: fanOut >> (8 * $0)) }
            + Array(userID.utf8)
    }
}
