import Foundation
import RowCastEngine

extension PostgreSQLFeedStore {
    /// How long a connection attempt may take before it counts as unreachable, in seconds.
    static let connectTimeoutSeconds = 5
    /// How long a start waits for the store's lock that another connection holds.
    static let lockWait = Duration.seconds(3)

    /// Connects to `url`, sets the session up and takes the store's lock.
    static func connect(url: String) throws(StoreError) -> PostgresConnection {
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(parameters: [
                ("connect_timeout", String(connectTimeoutSeconds)),
                ("application_name", "rowcastd"),
                // Dead peers are noticed within about 30 s even with nothing in flight.
                ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
                // Expanded into its parts; any given in it override the defaults above.
                ("dbname", url),
            ])
        } catch {
            throw storeError(error, url: url, during: "connecting to")
        }
        do {
            guard connection.serverVersion >= 140_000 else {
                throw StoreError(
                    .foreign, path: url,
                    message:
                        "the PostgreSQL server at \(url) is version \(connection.serverVersion / 10000); rowcastd needs 14 or newer (pipeline mode)."
                )
            }
            // A rowcastd that just stopped (or was killed) leaves its lock until its server
            // process sees the connection close: a few tries over up to 3 s.
            var locked = false
            let deadline = ContinuousClock.now + lockWait
            while !locked {
                locked =
                    try connection.query(PostgresStatement("SELECT pg_try_advisory_lock($1)", [.int(lockKey)]))
                    .first(where: { _ in true })?.bool(0) == true
                guard !locked, ContinuousClock.now < deadline else { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            guard locked else {
                throw StoreError(
                    .locked, path: url,
                    message:
                        "another rowcastd uses the PostgreSQL store \(url) (it holds the store's advisory lock). Stop it, or point --store at another database."
                )
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

    /// A `StoreError` for a failure while doing `action` to the store at `url`: `unavailable`
    /// when the server cannot be reached or the connection broke, `full` when its disk is
    /// full, `io` otherwise.
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
        if failure.isDiskFull {
            return StoreError(
                .full, path: url,
                message: "the PostgreSQL server of \(url) is out of disk space (\(failure.message)). Free space there.")
        }
        let state = failure.sqlState.map { " [SQLSTATE \($0)]" } ?? ""
        return StoreError(
            .io, path: url, message: "\(action) the PostgreSQL store \(url) failed: \(failure.message)\(state)")
    }
}
