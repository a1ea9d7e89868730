import Foundation
import Logging
import RowCastEngine
import RowCastWire

/// The durable store in PostgreSQL (`rowcastd --store postgresql://…`): every table in the
/// schema `rowcast` of one database, created and migrated by rowcastd. Every `commit` is one
/// transaction sent in one round trip (libpq's pipeline mode); each table's rows of a batch go
/// in one prepared statement that reads them from binary arrays with `unnest`, so the server
/// neither parses nor plans per commit. When it returns, the server has committed it as its
/// `synchronous_commit` says (docs/OPERATIONS.md, "PostgreSQL store").
///
/// A store holds a session advisory lock on its database while connected, so a second
/// rowcastd on the same database is refused (`locked`). A cluster node's store
/// (`init(url:node:logger:)`) holds that lock shared with the other nodes, plus one of its
/// node name's, and checks every commit against its partition leases (`fence`). When the
/// server goes away, the call in flight fails with `unavailable` and the next call connects
/// again, taking the same locks.
///
/// Not `Sendable`: the daemon's loop thread owns it and lends it to its commit thread.
public final class PostgreSQLFeedStore: FeedStore {
    /// The URL as given (it carries no password).
    public let url: String
    /// Whether the stored feeds continue what subscribers saw, as judged when opening.
    public let continuity: StoreContinuity

    /// The advisory lock key that one rowcastd per database holds (`rowcast` in ASCII).
    static let lockKey: Int64 = 0x726F_7763_6173_74

    /// The cluster node this store commits for, or nil for a single rowcastd.
    public let node: String?
    /// The fencing tokens every commit is checked against (set once, before the first commit,
    /// on a cluster node's store). With it, a commit that names a feed of a partition without a
    /// token here, or whose token is no longer the lease row's, fails with `fenced` and writes
    /// nothing.
    public var fence: LeaseTokens?
    /// How many round trips to the server the store made (a query, or a whole commit), for
    /// metrics; any thread may read it.
    public var roundTrips: Int { counter.value }

    let logger: Logger
    private let lockMode: LockMode
    private var connection: PostgresConnection?
    private var closed = false
    private let counter = RoundTripCounter()
    /// How much of the delta log `load` and `feeds(named:)` read back.
    var historyLimits = HistoryLimits.standard
    /// Each committed feed's first-arrival counter and owner, to checksum a counters-only update
    /// without reading the row back.
    var feedExtras: [String: (nextArrival: UInt64, owner: String?)] = [:]

    /// Connects to the database `url` names, creates or migrates the schema, and holds the
    /// store's lock. Throws `unavailable` when the server cannot be reached, `locked` when
    /// another rowcastd uses the database, `newerSchema` for a schema this build does not know.
    public convenience init(url: String, logger: Logger = Logger(label: "rowcast.store")) throws(StoreError) {
        try self.init(url: url, lockMode: .single, logger: logger)
    }

    /// Opens the store as cluster node `node`: as `init(url:logger:)`, but holding the
    /// store-wide lock shared with the other nodes (a rowcastd that is no node is refused with
    /// `locked`, and refuses the nodes while it runs) and an exclusive lock of the node's name
    /// (a second process as the same node is refused with `locked`), and the server ends its
    /// session when it idles inside a transaction for longer than `lease` (a paused node's
    /// commit lets its lease rows go). Set `fence` before the first commit.
    public convenience init(url: String, node: String, lease: Duration, logger: Logger) throws(StoreError) {
        try self.init(url: url, lockMode: .node(node, lease: lease), logger: logger)
    }

    private init(url: String, lockMode: LockMode, logger: Logger) throws(StoreError) {
        self.url = url
        self.logger = logger
        self.lockMode = lockMode
        if case .node(let name, _) = lockMode { node = name } else { node = nil }
        let connection = try Self.connect(url: url, mode: lockMode)
        connection.onRoundTrip = counter.increment
        do {
            continuity = try Self.migrate(connection, url: url) ? .fresh : .continued
        } catch let error as StoreError {
            connection.close()
            throw error
        } catch {
            connection.close()
            throw Self.storeError(error, url: url, during: "creating the schema in")
        }
        self.connection = connection
        logger.info(
            "state opened",
            metadata: [
                "store": "\(url)", "server_version": "\(connection.serverVersion)", "continuity": "\(continuity)",
            ])
    }

    deinit { connection?.close() }

    // MARK: - FeedStore

    /// The feeds, action events and quarantine entries of `partitions`, and the whole ledger
    /// and renderer records, read from those partitions' rows alone. The first-arrival
    /// counters and owners kept for counters-only commits are read afresh for these feeds
    /// (another node may have changed them).
    public func load(partitions: Set<Partition>) throws(StoreError) -> StoredState {
        forget(partitions: partitions)
        return try withConnection(during: "reading") { connection in
            let list = PostgresValue.bigintArray(partitions.sorted().map { Int64($0.index) })
            var state = StoredState(
                feeds: try readFeeds(connection, names: try feedNames(connection, inPartitions: partitions)),
                ledger: try readLedger(connection),
                renderers: try readRenderers(connection),
                continuity: continuity,
                events: try readEvents(connection, partitions: list))
            state.quarantine = try readQuarantine(connection, partitions: list)
            return state
        }
    }

    /// Forgets what the store keeps of the feeds of `partitions` (their first-arrival counters
    /// and owners): a node that gives them up reads them afresh if it takes them again.
    public func forget(partitions: Set<Partition>) {
        guard !partitions.isEmpty else { return }
        feedExtras = feedExtras.filter { !partitions.contains(Partition(feed: $0.key)) }
    }

    /// Everything stored.
    public func load() throws(StoreError) -> StoredState {
        try withConnection(during: "reading") { connection in
            var state = StoredState(
                feeds: try readFeeds(connection, names: nil),
                ledger: try readLedger(connection),
                renderers: try readRenderers(connection),
                continuity: continuity,
                events: try readEvents(connection))
            state.quarantine = try readQuarantine(connection)
            return state
        }
    }

    /// Writes `batches` in one transaction, pipelined in one round trip.
    public func commit(_ batches: [StoreCommit]) throws(StoreError) {
        var statements: [PostgresStatement] = []
        if let fence { statements += try fenceStatements(batches, fence: fence) }
        var extras = feedExtras
        for batch in batches { statements += writeStatements(for: batch, extras: &extras) }
        try withConnection(during: "committing to") { connection in
            try connection.transaction(statements)
        }
        feedExtras = extras
    }

    /// The named feeds as committed.
    public func feeds(named names: [String]) throws(StoreError) -> [RestoredFeed] {
        guard !names.isEmpty else { return [] }
        return try withConnection(during: "reading") { connection in
            try readFeeds(connection, names: names)
        }
    }

    /// The feeds of `partitions` as committed (by the `partition` column every feed row has).
    public func feeds(inPartitions partitions: Set<Partition>) throws(StoreError) -> [RestoredFeed] {
        guard !partitions.isEmpty else { return [] }
        return try withConnection(during: "reading") { connection in
            let names = try feedNames(connection, inPartitions: partitions)
            guard !names.isEmpty else { return [] }
            return try readFeeds(connection, names: names)
        }
    }

    /// The names of the stored feeds of `partitions`.
    private func feedNames(
        _ connection: PostgresConnection, inPartitions partitions: Set<Partition>
    ) throws
        -> [String]
    {
        guard !partitions.isEmpty else { return [] }
        return try connection.query(
            PostgresStatement(
                "SELECT name FROM rowcast.feeds WHERE partition = ANY($1::integer[])",
                [.bigintArray(partitions.sorted().map { Int64($0.index) })])
        ).compactMap { $0.text(0) }
    }

    /// The remembered answers as committed.
    public func ledgerEntries() throws(StoreError) -> [LedgerEntry] {
        try withConnection(during: "reading") { connection in try readLedger(connection) }
    }

    /// The quarantined items as committed, oldest first.
    public func quarantinedItems() throws(StoreError) -> [QuarantinedItem] {
        try withConnection(during: "reading") { connection in try readQuarantine(connection) }
    }

    /// Closes the connection (which releases the store's lock). Every commit was durable when
    /// it returned, so there is no clean stop to record.
    public func close() {
        closed = true
        // Released here, not when the server notices the connection closed, so that a store
        // opened right after finds it free.
        if let connection, !connection.isBroken {
            _ = try? connection.query(PostgresStatement("SELECT pg_advisory_unlock_all()"))
        }
        connection?.close()
        connection = nil
    }

    /// Reads back at most `limits` of the delta log from now on.
    public func keepHistory(within limits: HistoryLimits) {
        historyLimits = limits
    }

    // MARK: - Connection

    /// Runs `body` on the connection, connecting first when there is none or it broke; maps
    /// every failure to a `StoreError`.
    private func withConnection<T>(
        during action: String, _ body: (PostgresConnection) throws -> T
    ) throws(StoreError) -> T {
        guard !closed else {
            throw StoreError(.io, path: url, message: "the PostgreSQL store \(url) is closed")
        }
        let connection: PostgresConnection
        if let current = self.connection, !current.isBroken {
            connection = current
        } else {
            self.connection?.close()
            self.connection = nil
            connection = try Self.connect(url: url, mode: lockMode)
            connection.onRoundTrip = counter.increment
            logger.notice("connected to the PostgreSQL store again", metadata: ["store": "\(url)"])
            self.connection = connection
        }
        do {
            return try body(connection)
        } catch {
            if connection.isBroken {
                connection.close()
                self.connection = nil
            }
            throw Self.storeError(error, url: url, during: action)
        }
    }
}

@available(*, unavailable)
extension PostgreSQLFeedStore: Sendable {}

/// A count any thread may read while one thread adds to it.
private final class RoundTripCounter: @unchecked Sendable {
    // `@unchecked Sendable`: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    /// Adds one.
    func increment() { lock.withLock { count += 1 } }

    /// The count.
    var value: Int { lock.withLock { count } }
}
