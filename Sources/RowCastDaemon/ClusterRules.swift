/// What a cluster node's configuration must hold (docs/OPERATIONS.md, "Cluster"): a node name
/// that is a plain word, and a PostgreSQL store (the nodes share it; SQLite belongs to one
/// process). CURVE is allowed: the nodes share one server key pair, and a node forwards each
/// request with the original client's key, whose grants the owner applies (docs/SECURITY.md,
/// "Cluster nodes"); a node whose server key differs is found at forwarding time, since only
/// the store knows the others' keys. So are several engine threads: the node's one coordinator
/// hands each loop the leases of its partitions (docs/OPERATIONS.md, "Engine threads").
public enum ClusterRules {
    /// A node name in words, for errors and help.
    public static let allowedNodeName = "1 to 64 letters, digits, '.', '_' or '-', or \"\" to run alone"

    /// Why `name` is no node name, or nil when it is one (or empty: no cluster).
    public static func problem(withNodeName name: String) -> String? {
        guard !name.isEmpty else { return nil }
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
        return allowed && name.utf8.count <= 64 ? nil : "must be \(allowedNodeName), got \"\(name)\""
    }

    /// Why `host` is no host to advertise, or nil when it is one (or empty: none).
    public static func problem(withHost host: String) -> String? {
        guard !host.isEmpty else { return nil }
        let allowed = host.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x3A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x2D || byte == 0x5B || byte == 0x5D
        }
        return allowed && host.utf8.count <= 253
            ? nil : "must be a host name or IP address, or \"\" for none, got \"\(host)\""
    }

    /// Throws an `invalid_value` error when a node name is set with a store other than
    /// PostgreSQL.
    public static func check(_ configuration: DaemonConfiguration, file: String?) throws(ConfigurationError) {
        guard !configuration.nodeName.isEmpty else { return }
        guard case .postgresql = try? StoreLocation(parsing: configuration.store) else {
            throw ConfigurationError(
                .invalidValue, file: file, key: "cluster.node_name",
                problem:
                    "a cluster node needs a PostgreSQL store that every node shares: set store: postgresql://USER@HOST:PORT/DATABASE (--store), or leave node_name empty to run alone"
            )
        }
    }
}
