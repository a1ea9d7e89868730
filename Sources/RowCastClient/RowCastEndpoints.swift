/// The daemon's default endpoints (PROTOCOL.md, "Sockets").
public enum RowCastEndpoints {
    /// The PULL socket for fire-and-forget feed operations.
    public static let ingest = "tcp://127.0.0.1:7701"
    /// The ROUTER socket for acked operations and queries.
    public static let control = "tcp://127.0.0.1:7702"
    /// The PUB socket for deltas, errors, action events and heartbeats.
    public static let publish = "tcp://127.0.0.1:7703"
}
