import HTTPTypes
import RowCastClient
import RowCastWire

/// The HTTP status for an error code of the daemon (PROTOCOL.md, "Error codes") or of the
/// client library, as the gateway answers it.
enum DaemonErrorStatus {
    /// The status for `code`: the daemon's codes (`ErrorCode`), then the client library's own
    /// (`RowCastClientError`), which name transport failures.
    static func status(for code: String) -> HTTPResponse.Status {
        switch ErrorCode(rawValue: code) {
        case .notFound: .notFound
        case .forbidden: .forbidden
        case .noAction: .conflict
        case .invalidJSON, .invalidRequest, .invalidField, .missingField, .unknownOp, .unknownAction: .badRequest
        case .invalidValue: .unprocessableContent
        case .tooLarge: .contentTooLarge
        case .limitExceeded: .tooManyRequests
        case .pluginFailed, .pluginCrashed, .pluginTimeout, .storageError: .badGateway
        case .pluginUnavailable, .partitionUnavailable: .serviceUnavailable
        case .forwardTimeout: .gatewayTimeout
        default:
            switch code {
            case "timeout": .gatewayTimeout
            case "socket_error", "not_listening", "handshake_failed", "invalid_reply": .badGateway
            default: .internalServerError
            }
        }
    }

    /// `error` as the gateway's error, with its status.
    static func gatewayError(for error: RowCastClientError) -> GatewayError {
        GatewayError(status: status(for: error.code), code: error.code, message: error.message)
    }
}
