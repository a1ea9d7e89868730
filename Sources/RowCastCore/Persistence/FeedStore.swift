/// Where feeds live durably. The daemon's loop commits every batch through it before any
/// ack or delta of the batch goes out, and rebuilds the engine from it at start.
///
/// Implementations are not expected to be `Sendable`: the store belongs to the loop thread.
public protocol FeedStore: AnyObject {
    /// Everything stored, to rebuild the engine at start.
    func load() throws(StoreError) -> StoredState
    /// Writes one batch in one transaction. When it returns, the batch survives a crash of the
    /// process (and power loss, with `full` durability); when it throws, nothing of it was
    /// written.
    func commit(_ commit: StoreCommit) throws(StoreError)
    /// The named feeds as last committed (names the store never had are left out), to roll the
    /// engine back after a failed commit.
    func feeds(named names: [String]) throws(StoreError) -> [RestoredFeed]
    /// The remembered answers as last committed.
    func ledgerEntries() throws(StoreError) -> [LedgerEntry]
    /// Records a clean stop and closes; the store is not used after.
    func close()
}
