import RowCastEngine
import RowCastWire

extension PostgreSQLFeedStore {
    /// Every feed `commit` names, in any of its fields: what its partitions' leases must cover.
    static func feedNames(of commit: StoreCommit) -> Set<String> {
        var names = Set(commit.droppedFeeds)
        names.formUnion(commit.feeds.lazy.map(\.feed))
        names.formUnion(commit.counters.lazy.map(\.feed))
        names.formUnion(commit.events.lazy.map(\.feed))
        names.formUnion(commit.history.lazy.map(\.feed))
        names.formUnion(commit.quarantine.entered.lazy.map(\.feed))
        names.formUnion(commit.quarantine.left.lazy.map(\.feed))
        names.formUnion(commit.damagedItems.lazy.map(\.feed))
        return names
    }

    /// The lease check that goes first in a fenced commit of `batches`: one
    /// `rowcast.check_leases` over every partition they touch (every partition the node holds
    /// when they carry remembered answers and name no feed; none when they carry neither).
    /// Throws `fenced`, before anything is sent, when `fence` holds no token for one of them.
    func fenceStatements(_ batches: [StoreCommit], fence: LeaseTokens) throws(StoreError) -> [PostgresStatement] {
        var partitions = Set<Partition>()
        for batch in batches {
            for name in Self.feedNames(of: batch) { partitions.insert(Partition(feed: name)) }
        }
        let held = fence.held
        // Answers alone (refusals the ledger remembers) name no feed, but were decided on this
        // node's state of its partitions: they are written only while it holds every one.
        if partitions.isEmpty, batches.contains(where: { !$0.ledger.isEmpty }) { partitions = Set(held.keys) }
        guard !partitions.isEmpty else { return [] }
        var indexes: [Int64] = []
        var tokens: [Int64] = []
        for partition in partitions.sorted() {
            guard let token = held[partition] else {
                throw StoreError(
                    .fenced, path: url,
                    message:
                        "\(partition) is not held by node \(fence.node) (it has no lease token for it); nothing of the batch was written"
                )
            }
            indexes.append(Int64(partition.index))
            tokens.append(token)
        }
        return [
            PostgresStatement(
                "SELECT rowcast.check_leases($1, $2::integer[], $3::bigint[])",
                [.text(fence.node), .bigintArray(indexes), .bigintArray(tokens)])
        ]
    }
}
