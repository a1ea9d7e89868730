import Foundation

/// What went wrong talking to PostgreSQL: the server's message, its SQLSTATE when it sent
/// one, and whether the connection is gone (the store then reconnects on its next call).
struct PostgresFailure: Error {
    /// The server's (or libpq's) message, on one line.
    var message: String
    /// The five-character SQLSTATE, when the server sent one.
    var sqlState: String?
    /// The server's primary message alone (no `ERROR:` prefix, context or detail), when it sent one.
    var primaryMessage: String?
    /// Whether the connection is unusable now.
    var connectionLost: Bool

    /// A failure from its parts; the message is joined into one line.
    init(_ message: String, sqlState: String? = nil, primaryMessage: String? = nil, connectionLost: Bool) {
        self.message = message.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
        self.sqlState = sqlState
        self.primaryMessage = primaryMessage
        self.connectionLost = connectionLost
    }

    /// Whether the server is out of disk space (SQLSTATE 53100).
    var isDiskFull: Bool { sqlState == "53100" }
}
