import Foundation
import Logging
import RowCastEngine
import RowCastWire

/// A cluster node's view of the lease rows (`rowcast.partitions`) and the node registry
/// (`rowcast.nodes`) of a PostgreSQL store: heartbeats, and taking, renewing and releasing
/// partition leases. Every time is the server's (`clock_timestamp()`), never this machine's.
///
/// It has a connection of its own (no lock, no migration: the node's store creates the
/// schema). When the server goes away, the call in flight fails with `unavailable` and the
/// next call connects again.
///
/// Every statement that changes lease rows locks them first in partition order, as
/// `rowcast.check_leases` does in a commit, so a renewal or takeover waits for a commit in
/// flight instead of deadlocking with it.
///
/// Not `Sendable`: one thread (the daemon's coordinator) uses it.
public final class PartitionLeaseTable {
    /// The store's URL (it carries no password).
    public let url: String
    private let logger: Logger
    private var connection: PostgresConnection?
    private var closed = false

    /// Connects to the database `url` names. Throws `unavailable` when the server cannot be
    /// reached.
    public init(url: String, logger: Logger) throws(StoreError) {
        self.url = url
        self.logger = logger
        connection = try PostgreSQLFeedStore.openConnection(url: url, applicationName: "rowcastd leases")
    }

    deinit { connection?.close() }

    /// Records that `node` is alive: inserts its row (`started_at` now) or updates it;
    /// `heartbeat_at` is now, and `endpoints` and `plugins` (JSON text) replace what it had.
    public func heartbeat(node: String, endpoints: String, plugins: String) throws(StoreError) {
        try withConnection(during: "writing the heartbeat of node \(node) to") { connection in
            try connection.query(
                PostgresStatement(
                    """
                    INSERT INTO rowcast.nodes(name, endpoints, plugins, started_at, heartbeat_at)
                    VALUES ($1, $2, $3, clock_timestamp(), clock_timestamp())
                    ON CONFLICT (name) DO UPDATE SET endpoints = excluded.endpoints, plugins = excluded.plugins,
                        heartbeat_at = excluded.heartbeat_at
                    """, [.text(node), .text(endpoints), .text(plugins)]))
        }
    }

    /// The nodes whose last heartbeat is younger than `lease`, by name.
    public func liveNodes(within lease: Duration) throws(StoreError) -> [ClusterNode] {
        try withConnection(during: "reading the nodes of") { connection in
            try connection.query(
                PostgresStatement(
                    """
                    SELECT name, endpoints, plugins, \(Self.microseconds("clock_timestamp() - heartbeat_at"))
                    FROM rowcast.nodes
                    WHERE heartbeat_at > clock_timestamp() - $1::bigint * interval '1 microsecond'
                    ORDER BY name
                    """, [.int(Self.microseconds(lease))])
            ).map { row in
                guard let name = row.text(0), let endpoints = row.text(1), let plugins = row.text(2),
                    let age = row.integer(3)
                else { throw damaged("a row of rowcast.nodes") }
                return ClusterNode(name: name, endpoints: endpoints, plugins: plugins, heartbeatAge: .microseconds(age))
            }
        }
    }

    /// Every partition's lease row, by partition.
    public func leases() throws(StoreError) -> [PartitionLease] {
        try withConnection(during: "reading the leases of") { connection in
            try connection.query(
                PostgresStatement(
                    """
                    SELECT partition, owner, token, \(Self.microseconds("expires_at - clock_timestamp()"))
                    FROM rowcast.partitions ORDER BY partition
                    """)
            ).map { row in
                guard let index = row.integer(0), let partition = Partition(index: Int(index)),
                    let token = row.integer(2)
                else { throw damaged("a row of rowcast.partitions") }
                return PartitionLease(
                    partition: partition, owner: row.text(1), token: token,
                    expiresIn: row.integer(3).map { .microseconds($0) })
            }
        }
    }

    /// Takes, for `lease` from now, each of `partitions` that is free, expired, or already
    /// `node`'s, in one statement. The token goes up by one when the owner changes (it stays
    /// when `node` renews its own). Returns the partitions taken, with their tokens.
    ///
    /// A partition whose lease row a commit in flight holds (`check_leases` locks it `FOR
    /// SHARE`) is left for a later call (`SKIP LOCKED`): the old owner's commit ends first, so
    /// what it committed is there to read after a takeover, and a node paused in the middle of
    /// a commit stalls neither this call nor the round around it (its session ends after its
    /// lease, `PostgreSQLFeedStore.openConnection`).
    public func acquire(
        _ partitions: Set<Partition>, node: String, lease: Duration
    ) throws(StoreError)
        -> [Partition: Int64]
    {
        var takenOver: Set<Partition> = []
        return try acquire(partitions, node: node, lease: lease, takenOver: &takenOver)
    }

    /// `acquire(_:node:lease:)`, adding to `takenOver` each partition taken from another
    /// node's expired lease (a takeover, as opposed to a free partition).
    public func acquire(
        _ partitions: Set<Partition>, node: String, lease: Duration, takenOver: inout Set<Partition>
    ) throws(StoreError)
        -> [Partition: Int64]
    {
        guard !partitions.isEmpty else { return [:] }
        let rows = try withConnection(during: "taking partitions in") { connection in
            try connection.query(
                PostgresStatement(
                    """
                    WITH locked AS MATERIALIZED (
                        SELECT partition, owner AS previous FROM rowcast.partitions
                        WHERE partition = ANY($2::integer[])
                            AND (owner IS NULL OR owner = $1 OR expires_at < clock_timestamp())
                        ORDER BY partition FOR NO KEY UPDATE SKIP LOCKED
                    )
                    UPDATE rowcast.partitions AS p SET
                        token = CASE WHEN p.owner IS NOT DISTINCT FROM $1 THEN p.token ELSE p.token + 1 END,
                        owner = $1,
                        expires_at = clock_timestamp() + $3::bigint * interval '1 microsecond'
                    FROM locked
                    WHERE p.partition = locked.partition
                        AND (p.owner IS NULL OR p.owner = $1 OR p.expires_at < clock_timestamp())
                    RETURNING p.partition, p.token, locked.previous IS NOT NULL AND locked.previous <> $1
                    """,
                    [
                        .text(node), .bigintArray(partitions.sorted().map { Int64($0.index) }),
                        .int(Self.microseconds(lease)),
                    ]
                ))
        }
        for row in rows where row.bool(2) == true {
            if let index = row.integer(0), let partition = Partition(index: Int(index)) { takenOver.insert(partition) }
        }
        return Self.tokens(rows)
    }

    /// Extends to `lease` from now each of `held` that `node` still holds with that token.
    /// Returns those renewed: one left out was lost (another node took it).
    public func renew(
        _ held: [Partition: Int64], node: String, lease: Duration
    ) throws(StoreError)
        -> [Partition: Int64]
    {
        guard !held.isEmpty else { return [:] }
        let sorted = held.sorted { $0.key < $1.key }
        return try withConnection(during: "renewing the leases of node \(node) in") { connection in
            Self.tokens(
                try connection.query(
                    PostgresStatement(
                        """
                        WITH locked AS MATERIALIZED (
                            SELECT p.partition FROM rowcast.partitions AS p
                            JOIN unnest($2::integer[], $3::bigint[]) AS held(partition, token)
                                ON p.partition = held.partition AND p.token = held.token
                            WHERE p.owner = $1
                            ORDER BY p.partition FOR NO KEY UPDATE OF p
                        )
                        UPDATE rowcast.partitions AS p
                        SET expires_at = clock_timestamp() + $4::bigint * interval '1 microsecond'
                        FROM locked, unnest($2::integer[], $3::bigint[]) AS held(partition, token)
                        WHERE p.partition = locked.partition AND p.partition = held.partition
                            AND p.token = held.token AND p.owner = $1
                        RETURNING p.partition, p.token
                        """,
                        [
                            .text(node), .bigintArray(sorted.map { Int64($0.key.index) }),
                            .bigintArray(sorted.map(\.value)),
                            .int(Self.microseconds(lease)),
                        ])))
        }
    }

    /// Frees each of `partitions` that `node` holds (owner and expiry NULL; the token stays,
    /// so the next owner's is higher).
    public func release(_ partitions: Set<Partition>, node: String) throws(StoreError) {
        guard !partitions.isEmpty else { return }
        try withConnection(during: "releasing partitions in") { connection in
            try connection.query(
                PostgresStatement(
                    """
                    WITH locked AS MATERIALIZED (
                        SELECT partition FROM rowcast.partitions
                        WHERE owner = $1 AND partition = ANY($2::integer[])
                        ORDER BY partition FOR NO KEY UPDATE
                    )
                    UPDATE rowcast.partitions AS p SET owner = NULL, expires_at = NULL
                    FROM locked WHERE p.partition = locked.partition AND p.owner = $1
                    """, [.text(node), .bigintArray(partitions.sorted().map { Int64($0.index) })]))
        }
    }

    /// Frees every partition `node` holds and removes its row from the node registry, in one
    /// transaction: what a node does when it stops cleanly.
    public func leave(node: String) throws(StoreError) {
        try withConnection(during: "leaving the cluster of") { connection in
            try connection.transaction([
                PostgresStatement(
                    """
                    WITH locked AS MATERIALIZED (
                        SELECT partition FROM rowcast.partitions WHERE owner = $1
                        ORDER BY partition FOR NO KEY UPDATE
                    )
                    UPDATE rowcast.partitions AS p SET owner = NULL, expires_at = NULL
                    FROM locked WHERE p.partition = locked.partition AND p.owner = $1
                    """, [.text(node)]),
                PostgresStatement("DELETE FROM rowcast.nodes WHERE name = $1", [.text(node)]),
            ])
        }
    }

    /// Closes the connection; the table is not used after.
    public func close() {
        closed = true
        connection?.close()
        connection = nil
    }

    // MARK: - Helpers

    /// The SQL of `interval` (an expression) in whole microseconds, as a bigint.
    private static func microseconds(_ interval: String) -> String {
        "(EXTRACT(EPOCH FROM (\(interval))) * 1000000)::bigint"
    }

    /// `duration` in whole microseconds.
    private static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }

    /// The `partition, token` rows of an UPDATE … RETURNING.
    private static func tokens(_ rows: PostgresRows) -> [Partition: Int64] {
        var tokens: [Partition: Int64] = [:]
        for row in rows {
            if let index = row.integer(0), let partition = Partition(index: Int(index)), let token = row.integer(1) {
                tokens[partition] = token
            }
        }
        return tokens
    }

    private func damaged(_ record: String) -> StoreError {
        StoreError(
            .corrupt, path: url, message: "the PostgreSQL store \(url) holds \(record) with a value of the wrong type.")
    }

    /// Runs `body` on the connection, connecting first when there is none or it broke; maps
    /// every failure to a `StoreError`.
    private func withConnection<T>(
        during action: String, _ body: (PostgresConnection) throws -> T
    ) throws(StoreError) -> T {
        guard !closed else {
            throw StoreError(.io, path: url, message: "the lease table of the PostgreSQL store \(url) is closed")
        }
        let connection: PostgresConnection
        if let current = self.connection, !current.isBroken {
            connection = current
        } else {
            self.connection?.close()
            self.connection = nil
            connection = try PostgreSQLFeedStore.openConnection(url: url, applicationName: "rowcastd leases")
            logger.notice("lease table connected to the PostgreSQL store again", metadata: ["store": "\(url)"])
            self.connection = connection
        }
        do {
            return try body(connection)
        } catch {
            if connection.isBroken {
                connection.close()
                self.connection = nil
            }
            throw PostgreSQLFeedStore.storeError(error, url: url, during: action)
        }
    }
}

@available(*, unavailable)
extension PartitionLeaseTable: Sendable {}
