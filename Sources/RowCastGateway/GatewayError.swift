import HTTPTypes
import Hummingbird
import RowCastJSON

/// A request the gateway refuses: an HTTP status and a message that says what to change.
///
/// Sent as `{"error":{"code","message"}}` with that status.
public struct GatewayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status.
    public let status: HTTPResponse.Status
    /// A code in the daemon's vocabulary where one fits (`invalid_field`, `not_found`, ...).
    public let code: String
    /// What went wrong, naming the thing.
    public let message: String

    /// An error with these members.
    public init(status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// 400 with code `invalid_field`.
    public static func badRequest(_ message: String) -> GatewayError {
        GatewayError(status: .badRequest, code: "invalid_field", message: message)
    }

    /// "code: message".
    public var description: String { "\(code): \(message)" }
}

extension GatewayError: HTTPResponseError {
    /// `{"error":{"code","message"}}` as JSON, with ``status``.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body: JSONValue = ["error": ["code": .string(code), "message": .string(message)]]
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body.serialized())))
    }
}
