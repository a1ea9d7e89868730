/// One remembered answer: which request it answered, when (a rank that only grows), and the
/// reply body that was sent.
public struct LedgerEntry: Sendable, Equatable {
    /// The request it answered.
    public var key: LedgerKey
    /// The rank among all remembered answers; older answers have smaller ranks.
    public var order: UInt64
    /// The reply body exactly as sent.
    public var reply: [UInt8]

    /// An entry from its parts.
    public init(key: LedgerKey, order: UInt64, reply: [UInt8]) {
        self.key = key
        self.order = order
        self.reply = reply
    }
}

/// What the ledger learned and forgot since the last `RequestLedger.takeChanges()`, for the
/// durable store to write in the same transaction as the feed changes.
public struct LedgerChanges: Sendable, Equatable {
    /// Keys to delete from the store (answers that fell out of the window). Applied first.
    public var forgotten: [LedgerKey] = []
    /// Answers to insert or replace.
    public var recorded: [LedgerEntry] = []

    /// Nothing to write.
    public var isEmpty: Bool { forgotten.isEmpty && recorded.isEmpty }

    /// No changes.
    public init() {}
}
