/// How a relay carries each downstream client's routing envelope through rowcastd and back,
/// so every reply (every part of a chunked snapshot too) reaches the client that asked and no
/// other.
///
/// The relay's ROUTER receives `[peer, ..., empty, request]` (a DEALER with the delimiter, a
/// REQ, or another relay) and sends exactly that upstream over its DEALER: rowcastd keeps
/// every frame up to the empty one as the reply's envelope (PROTOCOL.md, "Framing"), so the
/// reply comes back as `[peer, ..., empty, reply]` and goes out of the ROUTER to `peer`
/// unchanged. A DEALER without the delimiter sends `[peer, request]`; that is sent upstream as
/// `[peer, marker, empty, request]` and its reply goes back without the marker and the empty
/// frame, as `[peer, reply]`, which is what the client would get from rowcastd itself.
public enum RelayEnvelope {
    /// The frame that marks a client that sent no empty delimiter frame.
    public static let noDelimiterMarker: [UInt8] = Array("rowcast-relay:no-delimiter".utf8)

    /// A downstream message split into its envelope (ending with the empty frame when there is
    /// one) and its request frames.
    public struct Request: Sendable, Equatable {
        /// The frames up to and including the empty delimiter (just the peer without one).
        public var envelope: [[UInt8]]
        /// The frames after the envelope: exactly one in a valid request.
        public var body: [[UInt8]]
        /// Whether the client sent the empty delimiter frame.
        public var hasDelimiter: Bool

        /// Splits `frames` as received on the ROUTER (the peer's routing id first).
        public init(frames: [[UInt8]]) {
            let delimiter = frames.dropFirst().firstIndex(where: \.isEmpty)
            let bodyStart = delimiter.map { $0 + 1 } ?? min(1, frames.count)
            envelope = Array(frames[..<bodyStart])
            body = Array(frames[bodyStart...])
            hasDelimiter = delimiter != nil
        }

        /// The frames to send upstream over the DEALER.
        public var upstreamFrames: [[UInt8]] {
            hasDelimiter ? envelope + body : envelope + [noDelimiterMarker, []] + body
        }

        /// The frames that answer this request with `reply` directly (a refusal), for the ROUTER.
        public func replyFrames(_ reply: [UInt8]) -> [[UInt8]] {
            envelope + [reply]
        }
    }

    /// The frames to send downstream over the ROUTER for a reply received upstream on the
    /// DEALER (`[peer, ..., empty, reply]`), or nil when it has no peer to go to.
    public static func downstreamFrames(ofReply frames: [[UInt8]]) -> [[UInt8]]? {
        guard frames.count >= 2, !frames[0].isEmpty else { return nil }
        if frames.count == 4, frames[1] == noDelimiterMarker, frames[2].isEmpty {
            return [frames[0], frames[3]]
        }
        return frames
    }
}
