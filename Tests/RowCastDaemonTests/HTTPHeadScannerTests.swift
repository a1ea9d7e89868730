@testable import RowCastHTTP
import Testing

/// Where a request head ends in the bytes of a connection, however they are split.
@Suite("HTTP head scanner")
struct HTTPHeadScannerTests {
    /// How many bytes of `chunks`, fed in order, the head takes; nil when it has not ended.
    func headLength(_ chunks: [String]) -> Int? {
        var scanner = HTTPHeadScanner()
        var before = 0
        for chunk in chunks {
            if let end = scanner.scan(Array(chunk.utf8)) { return before + end }
            before += chunk.utf8.count
        }
        return nil
    }

    @Test("a head ends at its first empty line, CRLF or bare LF, and the body is not part of it")
    func ends() {
        let head = "GET / HTTP/1.1\r\nHost: a\r\n\r\n"
        #expect(headLength([head + "body"]) == head.utf8.count)
        let bare = "GET / HTTP/1.1\nHost: a\n\n"
        #expect(headLength([bare + "body"]) == bare.utf8.count)
        #expect(headLength(["GET / HTTP/1.1\r\nHost: a\r\n"]) == nil)
        #expect(headLength(["GET / HTTP/1.1\r\nHost: a\r\nX: \r\n"]) == nil)
    }

    @Test("the end is found across chunks, split anywhere, even one byte at a time")
    func splits() {
        let head = "GET / HTTP/1.1\r\nHost: a\r\n\r\n"
        for cut in 1..<head.utf8.count {
            let bytes = Array(head.utf8)
            let chunks = [
                String(decoding: bytes[..<cut], as: UTF8.self), String(decoding: bytes[cut...], as: UTF8.self),
            ]
            #expect(headLength(chunks) == head.utf8.count, "cut at \(cut)")
        }
        #expect(headLength(head.map { String($0) }) == head.utf8.count)
    }

    @Test("empty lines before the request line do not end it")
    func leadingEmptyLines() {
        #expect(headLength(["\r\n\r\n"]) == nil)
        let head = "\r\n\r\nGET / HTTP/1.1\r\n\r\n"
        #expect(headLength([head + "body"]) == head.utf8.count)
    }
}
