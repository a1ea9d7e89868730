import HTTPTypes
import RowCastClient

/// The HTTP status for an error code of the daemon (PROTOCOL.md, "Error codes") or of the
/// client library, as the gateway answers it.
enum DaemonErrorStatus {
    /// The status for `code`.
    static func status(for code: String) -> HTTPResponse.Status {
        switch code {
        case "not_found": .notFound
        case "forbidden": .forbidden
        case "no_action": .conflict
        case "invalid_json", "invalid_request", "invalid_field", "missing_field", "unknown_op": .badRequest
        case "too_large": .contentTooLarge
        case "limit_exceeded": .tooManyRequests
        case "timeout": .gatewayTimeout
        case "socket_error", "not_listening", "handshake_failed", "invalid_reply",
            "plugin_failed", "plugin_crashed", "plugin_timeout", "storage_error":
            .badGateway
        default: .internalServerError
        }
    }

    /// `error` as the gateway's error, with its status.
    static func gatewayError(for error: RowCastClientError) -> GatewayError {
        GatewayError(status: status(for: error.code), code: error.code, message: error.message)
    }
}
