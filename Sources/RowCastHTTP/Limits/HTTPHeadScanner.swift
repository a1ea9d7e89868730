/// Finds where a request head ends in the bytes of a connection, as they arrive: at the first
/// empty line (CRLF CRLF, or a bare LF LF) after a line that is not empty. Empty lines before the
/// request line are skipped, as RFC 9112 lets a server do. Pure (`HTTPHeadScannerTests`).
struct HTTPHeadScanner: Sendable, Equatable {
    /// Whether a byte other than CR or LF was seen: the request line has begun.
    private var begun = false
    /// Whether the last line feed was followed by nothing but carriage returns: a line feed now
    /// ends the head.
    private var atLineStart = false

    /// A scanner at the start of a head.
    init() {}

    /// Reads `bytes`, the next ones of the head; returns how many of them belong to it when it
    /// ends among them, nil when it goes on.
    mutating func scan<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int? {
        var count = 0
        for byte in bytes {
            count += 1
            switch byte {
            case UInt8(ascii: "\n"):
                if begun, atLineStart { return count }
                atLineStart = begun
            case UInt8(ascii: "\r"):
                continue
            default:
                begun = true
                atLineStart = false
            }
        }
        return nil
    }
}
