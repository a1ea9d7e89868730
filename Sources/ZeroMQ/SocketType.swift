import CZeroMQ

/// The ZeroMQ socket patterns RowCast uses.
public enum SocketType: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `ZMQ_PUSH`: sends round-robin to connected PULL peers.
    case push
    /// `ZMQ_PULL`: fair-queues from connected PUSH peers.
    case pull
    /// `ZMQ_PUB`: sends to every subscriber whose subscription prefixes the first frame.
    case pub
    /// `ZMQ_SUB`: receives what it subscribed to from PUB peers.
    case sub
    /// `ZMQ_ROUTER`: prefixes received messages with the peer's routing id and routes replies by it.
    case router
    /// `ZMQ_DEALER`: asynchronous request/reply client, round-robin out, fair-queued in.
    case dealer
    /// `ZMQ_REQ`: strict send-then-receive client.
    case req
    /// `ZMQ_REP`: strict receive-then-send server.
    case rep
    /// `ZMQ_PAIR`: exactly one peer, typically over inproc to wake an event loop.
    case pair
    /// `ZMQ_XPUB`: a PUB that receives its subscribers' subscription messages.
    case xpub
    /// `ZMQ_XSUB`: a SUB that sends subscriptions as messages; the upstream side of a proxy.
    case xsub

    /// The `ZMQ_*` constant passed to `zmq_socket`.
    var rawValue: Int32 {
        switch self {
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .router: ZMQ_ROUTER
        case .dealer: ZMQ_DEALER
        case .req: ZMQ_REQ
        case .rep: ZMQ_REP
        case .pair: ZMQ_PAIR
        case .xpub: ZMQ_XPUB
        case .xsub: ZMQ_XSUB
        }
    }

    /// The libzmq name in capitals, e.g. `PUSH`.
    public var description: String {
        switch self {
        case .push: "PUSH"
        case .pull: "PULL"
        case .pub: "PUB"
        case .sub: "SUB"
        case .router: "ROUTER"
        case .dealer: "DEALER"
        case .req: "REQ"
        case .rep: "REP"
        case .pair: "PAIR"
        case .xpub: "XPUB"
        case .xsub: "XSUB"
        }
    }
}
