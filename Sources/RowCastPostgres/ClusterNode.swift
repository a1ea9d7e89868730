/// One live node of a cluster, as its last heartbeat in `rowcast.nodes` left it.
public struct ClusterNode: Sendable, Equatable {
    /// The node's name (`--node-name`).
    public var name: String
    /// Its endpoints, as the JSON text the node wrote.
    public var endpoints: String
    /// Its plugins, as the JSON text the node wrote.
    public var plugins: String
    /// How long ago its last heartbeat was, by the server's clock.
    public var heartbeatAge: Duration

    /// A node from its parts.
    public init(name: String, endpoints: String, plugins: String, heartbeatAge: Duration) {
        self.name = name
        self.endpoints = endpoints
        self.plugins = plugins
        self.heartbeatAge = heartbeatAge
    }
}
