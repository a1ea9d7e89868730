import RowCastClient
import RowCastJSON
import RowCastSupport
import ZeroMQ

/// The publish endpoints of the other nodes of the cluster the gateway's rowcastd belongs to,
/// so that each replica receives a feed's deltas whichever node serves it (each node publishes
/// only the feeds it serves; docs/OPERATIONS.md, "Cluster"). Empty for a single rowcastd.
///
/// Read from the `cluster` member of a `status` reply, asked at most every `refreshInterval`
/// by whichever hub asks first, with no feed listed (`after` names a feed that sorts after
/// every other). The hubs connect their SUB sockets to each endpoint it returns; a node that
/// leaves stays connected (ZeroMQ reconnects quietly), one that joins is added.
/// `@unchecked Sendable`: `cache` is behind its lock; the control client is used by one
/// refresh at a time (the `refreshing` flag, under the same lock).
final class ClusterPublishers: @unchecked Sendable {
    /// How often the list is asked for again.
    static let refreshInterval = Duration.seconds(2)
    /// A feed name that sorts after every feed name (PROTOCOL.md, "Names and limits").
    static let afterEveryFeed = String(repeating: "z", count: 128)

    private let options: GatewayOptions
    private let context: Context
    private let cache = LockedValue<(endpoints: [String], asked: ContinuousClock.Instant?, refreshing: Bool)>(
        ([], nil, false))
    private var client: ControlClient?

    init(options: GatewayOptions, context: Context) {
        self.options = options
        self.context = context
    }

    /// The other nodes' publish endpoints as last read; reads them again first when the list
    /// is older than `refreshInterval` and no other hub is reading it (that one's wait is not
    /// shared: this returns the list it has).
    func endpoints() -> [String] {
        let due = cache.withLock { cache -> Bool in
            guard !cache.refreshing else { return false }
            if let asked = cache.asked, asked.duration(to: .now) < Self.refreshInterval { return false }
            cache.refreshing = true
            return true
        }
        guard due else { return cache.withLock { $0.endpoints } }
        let read = try? readEndpoints()
        return cache.withLock { cache in
            if let read { cache.endpoints = read }
            cache.asked = .now
            cache.refreshing = false
            return cache.endpoints
        }
    }

    /// Asks the daemon; nil on any failure (the list stays as it was, and is asked again at
    /// the next refresh).
    private func readEndpoints() throws(RowCastClientError) -> [String] {
        if client == nil {
            client = try ControlClient(
                endpoint: options.controlEndpoint, context: context, timeout: options.timeout,
                clientName: AckedPublisher.randomClientID(prefix: "rowcast-gateway"), curve: options.curve)
        }
        let reply: JSONValue
        do {
            reply = try client!.request(["op": "status", "after": .string(Self.afterEveryFeed)])
        } catch {
            // A client that timed out may hold a late reply: start the next refresh afresh.
            client?.close()
            client = nil
            throw error
        }
        return Self.otherPublishers(in: reply, besides: options.publishEndpoint)
    }

    /// The publish endpoints of `status`'s cluster nodes other than the node that answered and
    /// other than `own`, in the reply's order.
    static func otherPublishers(in status: JSONValue, besides own: String) -> [String] {
        guard let cluster = status["cluster"], let asked = cluster["node"]?.stringValue else { return [] }
        return (cluster["nodes"]?.arrayValue ?? []).compactMap { node in
            guard node["name"]?.stringValue != asked, let publish = node["publish"]?.stringValue,
                !publish.isEmpty, publish != own
            else { return nil }
            return publish
        }
    }
}
