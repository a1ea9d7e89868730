import DequeModule

/// The answers rowcastd gave to recent acked mutations, by (client, req), so that a retried
/// request gets its original answer instead of being applied twice. Entries are persisted in
/// the same transaction as the batch that produced them, so a retry after a restart is
/// recognised too.
///
/// Bounded: each client keeps its `Limits.perClient` most recent answers, and at most
/// `Limits.total` answers are kept overall (the oldest go first). A client that keeps at most
/// `perClient` requests in flight, and retries only those, always finds its answers.
public struct RequestLedger: Sendable {
    /// How many answers are remembered.
    public struct Limits: Sendable, Equatable {
        /// Answers kept per client (the most recent ones).
        public var perClient: Int
        /// Answers kept in all (the most recent ones).
        public var total: Int

        /// Limits from their parts (each at least 1).
        public init(perClient: Int = 4096, total: Int = 200_000) {
            self.perClient = max(1, perClient)
            self.total = max(1, total)
        }
    }

    /// What `claim` found for a key.
    public enum Claim: Sendable, Equatable {
        /// Never answered: apply the request (the key is now claimed for this batch).
        case fresh
        /// Answered before: send this reply again.
        case answered([UInt8])
        /// Claimed earlier in the same batch: its answer is recorded before this one's reply
        /// is written.
        case inBatch
    }

    /// The limits in force.
    public let limits: Limits
    private var answers: [LedgerKey: (order: UInt64, reply: [UInt8])] = [:]
    private var byClient: [String: Deque<LedgerKey>] = [:]
    /// Every recorded key in recording order; may hold keys already forgotten (skipped).
    private var recordingOrder: Deque<(order: UInt64, key: LedgerKey)> = []
    private var nextOrder: UInt64 = 1
    /// The counter the ranks come from when several engine loops share the store; nil: this
    /// ledger's own.
    public var sharedOrder: LedgerOrder?
    private var claimedInBatch: Set<LedgerKey> = []
    private var pendingRecorded: [LedgerKey: LedgerEntry] = [:]
    private var pendingForgotten: Set<LedgerKey> = []

    /// An empty ledger.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// A ledger holding `entries` as loaded from the store (any order); nothing is pending.
    public init(limits: Limits = Limits(), entries: [LedgerEntry]) {
        self.limits = limits
        for entry in entries.sorted(by: { $0.order < $1.order }) {
            insert(entry.key, order: entry.order, reply: entry.reply)
            nextOrder = max(nextOrder, entry.order + 1)
        }
        // Loaded answers are in the store already; answers over the limits are deleted from
        // it with the next commit.
        pendingRecorded = [:]
    }

    /// Adds the answers of `entries` this ledger does not know (another cluster node recorded
    /// them in the shared store), oldest first; they are in the store already, so nothing of
    /// them is handed back as a change. Answers over the limits leave memory as usual, but are
    /// not deleted from the store.
    public mutating func merge(_ entries: [LedgerEntry]) {
        // What the limits push out while merging leaves memory only: other nodes still answer
        // from those rows of the shared store.
        let forgottenBefore = pendingForgotten
        for entry in entries.sorted(by: { $0.order < $1.order }) where answers[entry.key] == nil {
            insert(entry.key, order: entry.order, reply: entry.reply)
            pendingRecorded.removeValue(forKey: entry.key)
            nextOrder = max(nextOrder, entry.order + 1)
        }
        pendingForgotten = forgottenBefore
    }

    /// How many answers are remembered.
    public var count: Int { answers.count }

    /// The remembered answer to `key`, if any.
    public func answer(_ key: LedgerKey) -> [UInt8]? { answers[key]?.reply }

    /// Looks `key` up before a request is applied; a fresh key is claimed until `endBatch`.
    public mutating func claim(_ key: LedgerKey) -> Claim {
        if let known = answers[key] { return .answered(known.reply) }
        if !claimedInBatch.insert(key).inserted { return .inBatch }
        return .fresh
    }

    /// Remembers the reply sent for `key`, forgetting the oldest answers beyond the limits.
    public mutating func record(_ key: LedgerKey, reply: [UInt8]) {
        let order = sharedOrder?.take(above: nextOrder - 1) ?? nextOrder
        nextOrder = order + 1
        if answers[key] != nil { forget(key) }
        insert(key, order: order, reply: reply)
    }

    /// Drops the answer to `key` as if it was never recorded (its batch was not committed, and
    /// the store's answers cannot be read back yet): a retry is applied, not answered.
    public mutating func discard(_ key: LedgerKey) {
        forget(key)
        pendingForgotten.remove(key)
    }

    /// Ends a batch: keys claimed in it are released.
    public mutating func endBatch() {
        claimedInBatch.removeAll(keepingCapacity: true)
    }

    /// What was recorded and forgotten since the last call, and forgets that.
    public mutating func takeChanges() -> LedgerChanges {
        var taken = LedgerChanges()
        taken.forgotten = pendingForgotten.sorted { ($0.client, $0.req) < ($1.client, $1.req) }
        taken.recorded = pendingRecorded.values.sorted { $0.order < $1.order }
        pendingRecorded.removeAll(keepingCapacity: true)
        pendingForgotten.removeAll(keepingCapacity: true)
        return taken
    }

    private mutating func insert(_ key: LedgerKey, order: UInt64, reply: [UInt8]) {
        answers[key] = (order, reply)
        byClient[key.client, default: []].append(key)
        recordingOrder.append((order, key))
        pendingRecorded[key] = LedgerEntry(key: key, order: order, reply: reply)
        // Read count and oldest without holding the deque, so `forget` mutates it in place.
        if (byClient[key.client]?.count ?? 0) > limits.perClient, let oldest = byClient[key.client]?.first {
            forget(oldest)
        }
        while answers.count > limits.total, let (order, oldest) = recordingOrder.popFirst() {
            if answers[oldest]?.order == order { forget(oldest) }
        }
        // Forgotten keys leave stale positions behind; drop them before they pile up.
        if recordingOrder.count > 2 * limits.total + 64 {
            recordingOrder.removeAll { answers[$0.key]?.order != $0.order }
        }
    }

    private mutating func forget(_ key: LedgerKey) {
        guard answers.removeValue(forKey: key) != nil else { return }
        if byClient[key.client]?.first == key {
            byClient[key.client]?.removeFirst()
        } else {
            byClient[key.client]?.removeAll { $0 == key }
        }
        if byClient[key.client]?.isEmpty == true { byClient[key.client] = nil }
        // The store deletes forgotten keys before inserting recorded ones, so a key forgotten
        // and recorded again in one commit ends up recorded.
        pendingRecorded.removeValue(forKey: key)
        pendingForgotten.insert(key)
    }
}
