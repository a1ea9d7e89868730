import RowCastWire

/// One partition's lease row (`rowcast.partitions`).
public struct PartitionLease: Sendable, Equatable {
    /// The partition.
    public var partition: Partition
    /// The node holding it, or nil when it is free.
    public var owner: String?
    /// Its fencing token: bumped whenever another node takes it.
    public var token: Int64
    /// How long until the lease expires, by the server's clock (negative once it has); nil
    /// when no lease is running (a free partition).
    public var expiresIn: Duration?

    /// A lease from its parts.
    public init(partition: Partition, owner: String?, token: Int64, expiresIn: Duration?) {
        self.partition = partition
        self.owner = owner
        self.token = token
        self.expiresIn = expiresIn
    }
}
