import RowCastEngine
import ZeroMQ

/// Splits a message received on the ROUTER socket into its routing envelope and its request
/// (docs/PROTOCOL.md, "Framing"); the envelope travels with the request's batch as its
/// `ReplyRoute`, which the reply is sent on.
///
/// `[identity, ..., empty, request]` (REQ, or DEALER with a delimiter) keeps everything up to
/// and including the empty frame; `[identity, request]` (DEALER without one) keeps the identity.
struct ControlEnvelope {
    /// The frames the reply must start with.
    let routing: [[UInt8]]
    /// The request body.
    let body: [UInt8]
    /// How many frames the request part had (more than one is refused).
    let bodyFrameCount: Int
    /// The request body's full size in bytes (`body` may hold only its first bytes).
    let bodySize: Int
    /// The frame after the body, when the request part had two: a cluster node's
    /// ``ForwardedClient`` frame, or a mistake that is refused.
    let secondBodyFrame: [UInt8]?

    init(frames: [[UInt8]]) {
        self.init(ReceivedMessage(frames: frames, sizes: frames.map(\.count)))
    }

    init(_ message: ReceivedMessage) {
        let frames = message.frames
        let delimiter = frames.dropFirst().firstIndex(where: \.isEmpty)
        let bodyStart = delimiter.map { $0 + 1 } ?? 1
        routing = Array(frames[..<min(bodyStart, frames.count)])
        body = frames.count > bodyStart ? frames[bodyStart] : []
        bodySize = frames.count > bodyStart ? message.sizes[bodyStart] : 0
        bodyFrameCount = max(frames.count - bodyStart, 0)
        secondBodyFrame = frames.count == bodyStart + 2 ? frames[bodyStart + 1] : nil
    }

    /// The connection the request came on: a hash (FNV-1a) of the ROUTER's identity frame,
    /// for the order of one connection's requests (`IncomingMessage.connection`). Behind the
    /// front of several engine loops (`FrontRouter`), the client's identity frames after the
    /// front's header name it.
    var connection: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let behindFront = routing.count > 2 && FrontHeader(bytes: routing[1]) != nil
        let frames = behindFront ? routing[2...].prefix { !$0.isEmpty } : routing.prefix(1)
        for frame in frames {
            for byte in frame { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        return hash
    }

    /// The User-Id the front of several engine loops names the client with (`FrontHeader`),
    /// or nil when the request came from no front, or from a connection without one.
    var frontUserID: String? {
        guard routing.count > 2, let header = FrontHeader(bytes: routing[1]), !header.userID.isEmpty else {
            return nil
        }
        return header.userID
    }

    /// Where the reply goes, to travel with the request's batch (`BatchReceipt`).
    var route: ReplyRoute { ReplyRoute(frames: routing) }
}
