import RowCastClient

/// What a relay connects to and what it offers: rowcastd's publish and control endpoints
/// upstream, and the endpoints it binds for the subscribers and replicas downstream.
public struct RelayConfiguration: Sendable, Equatable {
    /// rowcastd's publish endpoint (its PUB/XPUB), which the relay's XSUB connects to.
    public var upstreamPublish: String
    /// The publish endpoints of a cluster's other nodes: the XSUB connects to each as well, so
    /// subscribers get every feed's deltas whichever node owns it (docs/OPERATIONS.md, "Cluster").
    public var otherUpstreamPublishes: [String] = []
    /// rowcastd's control endpoint (its ROUTER), which the relay's DEALER connects to.
    public var upstreamControl: String
    /// The endpoint the relay's XPUB binds for subscribers (a `tcp://...:*` port is chosen
    /// by the system; ``Relay/publishEndpoint`` tells which).
    public var publish: String
    /// The endpoint the relay's ROUTER binds for replicas' read-only requests.
    public var control: String
    /// CURVE towards rowcastd (both upstream sockets), or nil for plain connections. The
    /// downstream sockets are plain: bind them where only trusted peers reach.
    public var curve: CurveCredentials?
    /// Requests waiting for rowcastd at most (the DEALER's high-water mark); past it a request
    /// is refused with `unavailable` instead of queued.
    public var upstreamQueue: Int
    /// Messages the publish side holds per subscriber (XPUB) and from rowcastd (XSUB) before
    /// dropping, as rowcastd's `limits.publish_high_water_mark`; a subscriber that falls
    /// further behind misses messages and recovers as from any gap.
    public var highWaterMark: Int
    /// The largest request taken from downstream, in bytes; libzmq drops a larger one with its
    /// connection (every request a relay forwards is small).
    public var maximumRequestBytes: Int

    /// A configuration with the defaults for the queue (1,000), the high-water mark (100,000,
    /// rowcastd's) and the request size (1 MiB).
    public init(
        upstreamPublish: String, upstreamControl: String, publish: String, control: String,
        curve: CurveCredentials? = nil, upstreamQueue: Int = 1000, highWaterMark: Int = 100_000,
        maximumRequestBytes: Int = 1 << 20
    ) {
        self.upstreamPublish = upstreamPublish
        self.upstreamControl = upstreamControl
        self.publish = publish
        self.control = control
        self.curve = curve
        self.upstreamQueue = upstreamQueue
        self.highWaterMark = highWaterMark
        self.maximumRequestBytes = maximumRequestBytes
    }
}
