import RowCastWire

/// Which live node should own each partition: rendezvous (highest-random-weight) hashing over
/// the nodes' names. Every node computes the same answer from the same list of live nodes, with
/// no coordinator; when a node joins or leaves, only the partitions it wins or held move (about
/// 1/N of them), and the others stay where they are.
///
/// A partition's weight for a node is a 64-bit FNV-1a hash of the node's name and the
/// partition's number, mixed (SplitMix64's finalizer) so that names differing in one character
/// still spread evenly; the node of the highest weight wins, ties broken by name.
public struct PartitionAssignment: Sendable, Equatable {
    /// The live nodes' names, sorted.
    public let nodes: [String]

    /// The assignment over `nodes` (duplicates and order do not matter).
    public init(nodes: some Sequence<String>) {
        self.nodes = Set(nodes).sorted()
    }

    /// The node that should own `partition`; nil when no node is live.
    public func owner(of partition: Partition) -> String? {
        var best: (weight: UInt64, node: String)?
        for node in nodes {
            let weight = Self.weight(node: node, partition: partition)
            if let current = best, current.weight > weight || (current.weight == weight && current.node < node) {
                continue
            }
            best = (weight, node)
        }
        return best?.node
    }

    /// The partitions `node` should own.
    public func partitions(of node: String) -> Set<Partition> {
        Set(Partition.all.filter { owner(of: $0) == node })
    }

    /// The weight of `partition` for `node`.
    static func weight(node: String, partition: Partition) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in node.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash = (hash ^ 0xFF) &* 0x100_0000_01b3
        var number = UInt64(partition.index)
        for _ in 0..<2 {
            hash = (hash ^ (number & 0xFF)) &* 0x100_0000_01b3
            number >>= 8
        }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }
}
