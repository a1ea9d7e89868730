import Foundation
import RowCastWire

/// The fencing tokens of the partitions this node holds, as its lease table last granted or
/// renewed them. A `PostgreSQLFeedStore` whose `fence` is set checks every commit against
/// them in the commit's own transaction (`rowcast.check_leases`), so a node that lost a
/// partition cannot write to it any more (docs/OPERATIONS.md, "Leases and fencing").
///
/// Lock-protected: the coordinator thread changes it while the commit thread reads it.
public final class LeaseTokens: @unchecked Sendable {
    // `@unchecked Sendable`: `tokens` is only touched under `lock`.

    /// The node's name, as in `rowcast.partitions.owner`.
    public let node: String
    private let lock = NSLock()
    private var tokens: [Partition: Int64] = [:]

    /// No partition held yet, for node `node`.
    public init(node: String) { self.node = node }

    /// Records that this node holds `partition` with lease token `token`.
    public func set(_ partition: Partition, token: Int64) {
        lock.withLock { tokens[partition] = token }
    }

    /// Forgets `partitions`: commits touching them fail from now on.
    public func remove(_ partitions: Set<Partition>) {
        lock.withLock { for partition in partitions { tokens[partition] = nil } }
    }

    /// Every held partition's token.
    public var held: [Partition: Int64] { lock.withLock { tokens } }
}
