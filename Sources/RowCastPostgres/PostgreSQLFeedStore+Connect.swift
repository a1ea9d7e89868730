import Foundation
import RowCastEngine
import RowCastSupport

extension PostgreSQLFeedStore {
    /// How long a connection attempt may take before it counts as unreachable, in seconds.
    static let connectTimeoutSeconds = 5
    /// How long a start waits for the store's lock that another connection holds.
    static let lockWait = Duration.seconds(3)

    /// Which advisory locks a store's connection holds.
    enum LockMode: Equatable {
        /// The store-wide lock, exclusive: one rowcastd per database.
        case single
        /// The store-wide lock shared (with the other nodes of a cluster), and the node's own;
        /// the server ends the session once it idles in a transaction for longer than `lease`.
        case node(String, lease: Duration)
    }

    /// Connects to `url` and sets the session up (no lock): a server older than 14 is
    /// refused (`foreign`), one that cannot be reached is `unavailable`.
    ///
    /// The server is told to probe the connection when it is idle (`tcp_keepalives_*`), so a
    /// session of a machine that died or was cut off ends within about 25 s, and with it the
    /// advisory locks it held (a replacement could not start before, or a node could not hold
    /// its own lock again after a cut healed, for the kernel's two hours). With
    /// `idleInTransaction`, the server also ends a session that waits that long inside a
    /// transaction: a node paused in the middle of a commit, whose lease check holds lease
    /// rows, lets them go (and its commit fails) instead of holding them while it sleeps.
    static func openConnection(
        url: String, applicationName: String = "rowcastd", idleInTransaction: Duration? = nil
    ) throws(StoreError)
        -> PostgresConnection
    {
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(parameters: [
                ("connect_timeout", String(connectTimeoutSeconds)),
                ("application_name", applicationName),
                // Dead peers are noticed within about 30 s even with nothing in flight.
                ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
                // Expanded into its parts; any given in it override the defaults above.
                ("dbname", url),
            ])
        } catch {
            throw storeError(error, url: url, during: "connecting to")
        }
        guard connection.serverVersion >= 140_000 else {
            connection.close()
            throw StoreError(
                .foreign, path: url,
                message:
                    "the PostgreSQL server at \(url) is version \(connection.serverVersion / 10000); rowcastd needs 14 or newer (pipeline mode)."
            )
        }
        do {
            try connection.execute(sessionSettings(idleInTransaction: idleInTransaction))
        } catch {
            connection.close()
            throw storeError(error, url: url, during: "setting up a session with")
        }
        return connection
    }

    /// The SQL that sets a session's timeouts up (see `openConnection`).
    static func sessionSettings(idleInTransaction: Duration?) -> String {
        var settings = [("tcp_keepalives_idle", "10"), ("tcp_keepalives_interval", "5"), ("tcp_keepalives_count", "3")]
        if let idleInTransaction {
            settings.append(
                ("idle_in_transaction_session_timeout", String(max(1, idleInTransaction.wholeMilliseconds))))
        }
        return "SELECT " + settings.map { "set_config('\($0.0)', '\($0.1)', false)" }.joined(separator: ", ")
    }

    /// Connects to `url`, sets the session up and takes the store's locks as `mode` says.
    static func connect(url: String, mode: LockMode = .single) throws(StoreError) -> PostgresConnection {
        var idleInTransaction: Duration?
        if case .node(_, let lease) = mode { idleInTransaction = lease }
        let connection = try openConnection(url: url, idleInTransaction: idleInTransaction)
        do {
            switch mode {
            case .single:
                guard try tryLock(connection, "SELECT pg_try_advisory_lock($1)", [.int(lockKey)]) else {
                    // Shared holders only (cluster nodes) let a shared try through; a single
                    // rowcastd's exclusive hold does not.
                    let nodes = try tryLock(
                        connection, "SELECT pg_try_advisory_lock_shared($1)", [.int(lockKey)], wait: .zero)
                    if nodes {
                        try connection.query(PostgresStatement("SELECT pg_advisory_unlock_shared($1)", [.int(lockKey)]))
                        throw StoreError(
                            .locked, path: url,
                            message:
                                "the nodes of a rowcastd cluster use the PostgreSQL store \(url) (they hold the store's advisory lock shared); a rowcastd without --node-name cannot join them. Stop them, or point --store at another database."
                        )
                    }
                    throw StoreError(
                        .locked, path: url,
                        message:
                            "another rowcastd uses the PostgreSQL store \(url) (it holds the store's advisory lock). Stop it, or point --store at another database."
                    )
                }
            case .node(let node, _):
                guard try tryLock(connection, "SELECT pg_try_advisory_lock_shared($1)", [.int(lockKey)]) else {
                    throw StoreError(
                        .locked, path: url,
                        message:
                            "a rowcastd that is not a cluster node (no --node-name) uses the PostgreSQL store \(url) (it holds the store's advisory lock); node \(node) cannot join. Stop it, or point --store at another database."
                    )
                }
                guard try tryLock(connection, "SELECT pg_try_advisory_lock(\(nodeLockKey))", [.text(node)]) else {
                    throw StoreError(
                        .locked, path: url,
                        message:
                            "another rowcastd runs as node \(node) on the PostgreSQL store \(url) (it holds the node's advisory lock). Stop it, or give this one another --node-name."
                    )
                }
            }
        } catch let error as StoreError {
            connection.close()
            throw error
        } catch {
            connection.close()
            throw storeError(error, url: url, during: "connecting to")
        }
        return connection
    }

    /// The SQL of a node's own advisory lock key (`$1`: the node's name).
    static let nodeLockKey = "hashtextextended('rowcast node ' || $1, 0)"

    /// Runs a `pg_try_advisory_lock…` until it answers true or `wait` passed: a rowcastd that
    /// just stopped (or was killed) leaves its lock until its server process sees the
    /// connection close, so a start tries a few times over up to 3 s.
    private static func tryLock(
        _ connection: PostgresConnection, _ sql: String, _ parameters: [PostgresValue], wait: Duration = lockWait
    ) throws -> Bool {
        let deadline = ContinuousClock.now + wait
        while true {
            let locked =
                try connection.query(PostgresStatement(sql, parameters)).first(where: { _ in true })?.bool(0) == true
            if locked { return true }
            guard ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// A `StoreError` for a failure while doing `action` to the store at `url`: `unavailable`
    /// when the server cannot be reached or the connection broke, `fenced` when the lease
    /// check refused a commit, `full` when its disk is full, `io` otherwise.
    static func storeError(_ error: any Error, url: String, during action: String) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let failure = error as? PostgresFailure else {
            return StoreError(.io, path: url, message: "\(action) the PostgreSQL store \(url) failed: \(error)")
        }
        if failure.connectionLost {
            return StoreError(
                .unavailable, path: url,
                message:
                    "the PostgreSQL store \(url) cannot be reached (\(failure.message)) while \(action) it; rowcastd connects again at its next commit."
            )
        }
        if failure.sqlState == fencedState {
            return StoreError(
                .fenced, path: url,
                message: "\(failure.primaryMessage ?? failure.message); nothing of the batch was written")
        }
        if failure.isDiskFull {
            return StoreError(
                .full, path: url,
                message: "the PostgreSQL server of \(url) is out of disk space (\(failure.message)). Free space there.")
        }
        let state = failure.sqlState.map { " [SQLSTATE \($0)]" } ?? ""
        return StoreError(
            .io, path: url, message: "\(action) the PostgreSQL store \(url) failed: \(failure.message)\(state)")
    }

    /// The SQLSTATE `rowcast.check_leases` raises when a partition's lease is not this node's.
    static let fencedState = "RCF01"
}
