import RowCastJSON

/// The endpoints a cluster node tells the others (and `status`) it serves: where to forward a
/// request for a feed it owns, and where its subscribers connect. Stored as JSON text in the
/// node's row of the shared store.
public struct NodeEndpoints: Sendable, Equatable {
    /// The PULL endpoint for fire-and-forget ingest.
    public var ingest: String
    /// The ROUTER endpoint for acked requests and queries.
    public var control: String
    /// The PUB endpoint for deltas and events.
    public var publish: String
    /// The node's CURVE server public key (Z85), or nil when it runs without CURVE: every node
    /// of a cluster needs the same (docs/SECURITY.md, "Cluster nodes").
    public var serverKey: String?

    /// Endpoints from their parts.
    public init(ingest: String, control: String, publish: String, serverKey: String? = nil) {
        self.ingest = ingest
        self.control = control
        self.publish = publish
        self.serverKey = serverKey
    }

    /// The endpoints as bound, with `host` in place of a wildcard or loopback address when
    /// given (`cluster.advertise_host`).
    public init(bound: (ingest: String, control: String, publish: String), advertising host: String) {
        self.init(
            ingest: Self.advertised(bound.ingest, host: host), control: Self.advertised(bound.control, host: host),
            publish: Self.advertised(bound.publish, host: host))
    }

    /// `{"ingest","control","publish"}`, and `serverKey` with CURVE.
    public var json: String {
        var object: JSONObject = ["ingest": .string(ingest), "control": .string(control), "publish": .string(publish)]
        if let serverKey { object["serverKey"] = .string(serverKey) }
        return String(decoding: JSONValue.object(object).serialized(), as: UTF8.self)
    }

    /// The endpoints `text` (written by `json`) names; nil when it names none.
    public init?(json text: String) {
        guard let value = try? JSONParser.parse(text),
            let ingest = value["ingest"]?.stringValue, let control = value["control"]?.stringValue,
            let publish = value["publish"]?.stringValue
        else { return nil }
        self.init(ingest: ingest, control: control, publish: publish, serverKey: value["serverKey"]?.stringValue)
    }

    /// `endpoint` with its host replaced by `host` when it is TCP and bound to a wildcard or a
    /// loopback address (`tcp://*:7702`, `tcp://0.0.0.0:7702`, `tcp://127.0.0.1:7702`).
    static func advertised(_ endpoint: String, host: String) -> String {
        guard !host.isEmpty, endpoint.hasPrefix("tcp://") else { return endpoint }
        let rest = endpoint.dropFirst("tcp://".count)
        guard let colon = rest.lastIndex(of: ":") else { return endpoint }
        let bound = rest[..<colon]
        guard ["*", "0.0.0.0", "[::]", "::", "127.0.0.1", "localhost", "[::1]"].contains(bound) else { return endpoint }
        return "tcp://" + host + rest[colon...]
    }
}
