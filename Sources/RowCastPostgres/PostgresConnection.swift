import Foundation

import CPostgreSQL

/// One libpq connection, used blocking from one thread at a time (the store's owner, or the
/// commit thread it lends the store to). Not `Sendable`.
///
/// `transaction` sends a whole transaction in pipeline mode (PostgreSQL 14+): BEGIN, every
/// statement, COMMIT and one Sync go out together, and the results are read after, so a
/// commit costs one round trip however many statements it has. Its `prepared` statements are
/// parsed and planned once per connection (named statements), in the pipeline of their first
/// use.
final class PostgresConnection {
    private var handle: OpaquePointer?
    /// Called once per round trip to the server (a query, or a whole pipelined transaction).
    var onRoundTrip: (() -> Void)?
    /// The statements prepared on this connection: each one's SQL and its name.
    private var preparedNames: [String: String] = [:]
    /// The number in the next prepared statement's name (`rowcast_N`): never reused, so a
    /// name whose prepare's fate is unknown is not prepared twice.
    private var nextPreparedName = 0

    /// Connects with libpq's keyword/value parameters; a `dbname` that is a URL
    /// (`postgresql://…`) is expanded, and parameters after it override what it gives.
    /// Passwords come from `PGPASSWORD` or the passfile, as libpq reads them.
    init(parameters: [(String, String)]) throws(PostgresFailure) {
        let keys = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        var keyPointers: [UnsafePointer<CChar>?] = keys.map { UnsafePointer($0) } + [nil]
        var valuePointers: [UnsafePointer<CChar>?] = values.map { UnsafePointer($0) } + [nil]
        let connection = PQconnectdbParams(&keyPointers, &valuePointers, 1)
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(connection)
            throw PostgresFailure(message, connectionLost: true)
        }
        // The server's notices ("schema rowcast already exists, skipping" for every migration's
        // CREATE … IF NOT EXISTS) would go to standard error, rowcastd's log; they say nothing an
        // operator needs.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
    }

    deinit { close() }

    /// Closes the connection (idempotent).
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Whether the connection is gone: closed, or broken by the server or the network.
    var isBroken: Bool {
        guard let handle else { return true }
        return PQstatus(handle) != CONNECTION_OK
    }

    /// The server's version number (150018 for 15.18).
    var serverVersion: Int { handle.map { Int(PQserverVersion($0)) } ?? 0 }

    /// Runs one statement and returns its rows (none for a command).
    @discardableResult
    func query(_ statement: PostgresStatement) throws(PostgresFailure) -> PostgresRows {
        let handle = try open()
        onRoundTrip?()
        let result = Self.withParameters(statement.parameters) { count, types, values, lengths, formats in
            PQexecParams(handle, statement.sql, count, types, values, lengths, formats, 0)
        }
        defer { PQclear(result) }
        try check(result)
        return PostgresRows(result!)
    }

    /// Runs `sql` (no parameters, possibly several statements) with the simple protocol.
    func execute(_ sql: String) throws(PostgresFailure) {
        let handle = try open()
        onRoundTrip?()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    /// Runs `statements` in one transaction, pipelined: one round trip. When it returns, the
    /// COMMIT succeeded; when it throws, nothing of them is committed. A `prepared` statement
    /// this connection has not prepared yet is prepared in the same pipeline, just before its
    /// first run.
    func transaction(_ statements: [PostgresStatement]) throws(PostgresFailure) {
        let handle = try open()
        onRoundTrip?()
        guard PQenterPipelineMode(handle) == 1 else { throw failure(of: handle) }
        var firstError: PostgresFailure?
        let all = [PostgresStatement("BEGIN")] + statements + [PostgresStatement("COMMIT")]
        // What each command sent was: nil for a query, the SQL and name for a prepare.
        var commands: [(sql: String, name: String)?] = []
        var preparing: [String: String] = [:]
        for statement in all {
            var queued: Int32
            if statement.prepared {
                var name = preparedNames[statement.sql] ?? preparing[statement.sql]
                if name == nil {
                    let fresh = "rowcast_\(nextPreparedName)"
                    nextPreparedName += 1
                    let sent = Self.withParameters(statement.parameters) { count, types, _, _, _ in
                        PQsendPrepare(handle, fresh, statement.sql, count, types)
                    }
                    guard sent == 1 else {
                        firstError = failure(of: handle)
                        break
                    }
                    commands.append((statement.sql, fresh))
                    preparing[statement.sql] = fresh
                    name = fresh
                }
                queued = Self.withParameters(statement.parameters) { count, _, values, lengths, formats in
                    PQsendQueryPrepared(handle, name!, count, values, lengths, formats, 0)
                }
            } else {
                queued = Self.withParameters(statement.parameters) { count, types, values, lengths, formats in
                    PQsendQueryParams(handle, statement.sql, count, types, values, lengths, formats, 0)
                }
            }
            guard queued == 1 else {
                firstError = failure(of: handle)
                break
            }
            commands.append(nil)
        }
        if firstError == nil, PQpipelineSync(handle) != 1 { firstError = failure(of: handle) }
        if firstError == nil {
            firstError = readPipeline(handle, commands: commands)
        }
        _ = PQexitPipelineMode(handle)
        if let firstError {
            // An explicit transaction that failed stays open (aborted) until it is rolled back.
            if !isBroken, PQtransactionStatus(handle) != PQTRANS_IDLE {
                PQclear(PQexec(handle, "ROLLBACK"))
            }
            if isBroken {
                throw PostgresFailure(firstError.message, sqlState: firstError.sqlState, connectionLost: true)
            }
            throw firstError
        }
    }

    /// Reads the results of the pipelined `commands` and their Sync; the first error, or nil.
    /// A prepare that succeeded is remembered (a prepared statement outlives the transaction,
    /// even one rolled back); one the pipeline skipped after an error is not.
    private func readPipeline(_ handle: OpaquePointer, commands: [(sql: String, name: String)?]) -> PostgresFailure? {
        var firstError: PostgresFailure?
        var finished = 0
        while true {
            guard let result = PQgetResult(handle) else {
                // Each command's results end with a NULL; so does a broken connection.
                if PQstatus(handle) != CONNECTION_OK {
                    return firstError ?? failure(of: handle)
                }
                finished += 1
                if finished > commands.count + 1 { return firstError ?? failure(of: handle) }
                continue
            }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_SYNC {
                PQclear(result)
                return firstError
            }
            if status == PGRES_COMMAND_OK, finished < commands.count, let prepare = commands[finished] {
                preparedNames[prepare.sql] = prepare.name
            }
            if status == PGRES_FATAL_ERROR || status == PGRES_NONFATAL_ERROR, firstError == nil {
                firstError = resultFailure(result, handle: handle)
            }
            PQclear(result)
        }
    }

    private func open() throws(PostgresFailure) -> OpaquePointer {
        guard let handle else { throw PostgresFailure("the connection is closed", connectionLost: true) }
        return handle
    }

    private func check(_ result: OpaquePointer?) throws(PostgresFailure) {
        guard let result else { throw failure(of: handle) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: throw resultFailure(result, handle: handle)
        }
    }

    private func resultFailure(_ result: OpaquePointer, handle: OpaquePointer?) -> PostgresFailure {
        let message = String(cString: PQresultErrorMessage(result))
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
        let lost = handle.map { PQstatus($0) != CONNECTION_OK } ?? true
        return PostgresFailure(
            message.isEmpty ? String(cString: PQerrorMessage(handle)) : message, sqlState: state,
            primaryMessage: primary, connectionLost: lost)
    }

    private func failure(of handle: OpaquePointer?) -> PostgresFailure {
        guard let handle else { return PostgresFailure("the connection is closed", connectionLost: true) }
        return PostgresFailure(
            String(cString: PQerrorMessage(handle)), connectionLost: PQstatus(handle) != CONNECTION_OK)
    }

    /// Calls `body` with libpq's parameter arrays for `parameters`: every value's bytes in one
    /// buffer, bytes in binary format and the rest as text.
    private static func withParameters<T>(
        _ parameters: [PostgresValue],
        _ body: (
            Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?
        ) -> T
    ) -> T {
        guard !parameters.isEmpty else { return body(0, nil, nil, nil, nil) }
        var buffer: [UInt8] = []
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var types: [Oid] = []
        offsets.reserveCapacity(parameters.count)
        for parameter in parameters {
            let wire = parameter.wire
            types.append(parameter.type.rawValue)
            formats.append(wire.binary ? 1 : 0)
            if let bytes = wire.bytes {
                offsets.append(buffer.count)
                buffer += bytes
                // Text values end with a NUL for libpq; binary ones are counted by length.
                if !wire.binary { buffer.append(0) }
                lengths.append(Int32(bytes.count))
            } else {
                offsets.append(nil)
                lengths.append(0)
            }
        }
        if buffer.isEmpty { buffer.append(0) }
        return buffer.withUnsafeBufferPointer { storage in
            let base = UnsafeRawPointer(storage.baseAddress!).assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = offsets.map { $0.map { base + $0 } }
            return body(Int32(parameters.count), types, values, lengths, formats)
        }
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}
