import NIOCore

/// The answers the connection guard writes itself, as bytes, ahead of the HTTP encoder: a 408 to
/// a head that came too slowly, a 431 to one that is too large, and a 400 to a first request
/// the decoder could not read. Each closes the connection
/// and carries the headers every other answer of the endpoints carries
/// (`HTTPOriginMiddleware.secured`) and an error body like theirs.
enum HTTPGuardAnswer {
    /// `408 Request Timeout`.
    static func timeout(_ limits: HTTPConnectionLimits) -> ByteBuffer {
        bytes(
            status: "408 Request Timeout", code: "request_timeout",
            message:
                "the request head did not arrive within \(HTTPConnectionLimits.seconds(limits.headerTimeout)) s (\(limits.settings.headerTimeout)); send the whole head at once"
        )
    }

    /// `431 Request Header Fields Too Large`.
    static func tooLarge(_ limits: HTTPConnectionLimits) -> ByteBuffer {
        bytes(
            status: "431 Request Header Fields Too Large", code: "head_too_large",
            message:
                "the request line and headers are larger than \(limits.maxHeadBytes) bytes; send fewer or smaller headers (cookies, say)"
        )
    }

    /// `400 Bad Request`, for a request the HTTP decoder could not read.
    static let malformed = bytes(
        status: "400 Bad Request", code: "bad_request",
        message: "the request is not valid HTTP/1.1; check the request line and the headers")

    /// A whole HTTP/1.1 response with a JSON error body, closing the connection.
    static func bytes(status: String, code: String, message: String) -> ByteBuffer {
        let body = HTTPErrorBody.json(code: code, message: message)
        let head =
            "HTTP/1.1 \(status)\r\n"
            + "Content-Type: application/json; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n"
            + "X-Content-Type-Options: nosniff\r\n"
            + "X-Frame-Options: DENY\r\n"
            + "Referrer-Policy: no-referrer\r\n"
            + "Content-Security-Policy: default-src 'none'; frame-ancestors 'none'\r\n"
            + "\r\n"
        return ByteBuffer(string: head + body)
    }
}
