import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 GET over TCP loopback or a Unix socket, with a bounded wait: enough to
/// read rowcastd's `/metrics` and `/healthz` without URLSession (which has no Unix sockets).
struct HTTPGet {
    /// The status code.
    var status: Int
    /// The header lines, lowercased names.
    var headers: [String: String]
    /// The body as text.
    var body: String

    /// GETs `path` from `endpoint` (`tcp://127.0.0.1:PORT` or `ipc:///path`), waiting at most
    /// `timeout` seconds for the whole answer.
    static func get(_ endpoint: String, _ path: String, timeout: Int = 10) throws -> HTTPGet {
        let fd: Int32
        if endpoint.hasPrefix("ipc://") {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let socketPath = Array(endpoint.dropFirst("ipc://".count).utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in socketPath.enumerated() where index < raw.count - 1 { raw[index] = byte }
            }
            try setTimeout(fd, timeout)
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard connected == 0 else {
                close(fd); throw TestFailure("connect \(endpoint): \(String(cString: strerror(errno)))")
            }
        } else {
            guard let colon = endpoint.lastIndex(of: ":"), let port = UInt16(endpoint[endpoint.index(after: colon)...])
            else {
                throw TestFailure("not a tcp endpoint: \(endpoint)")
            }
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = port.bigEndian
            try setTimeout(fd, timeout)
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(fd); throw TestFailure("connect \(endpoint): \(String(cString: strerror(errno)))")
            }
        }
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, 0) == request.count else {
            throw TestFailure("send: \(String(cString: strerror(errno)))")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { break }
            guard count > 0 else {
                throw TestFailure(
                    "recv from \(endpoint)\(path): \(String(cString: strerror(errno))) after \(bytes.count) bytes")
            }
            bytes += buffer[0..<count]
        }
        return try parse(String(decoding: bytes, as: UTF8.self))
    }

    private static func setTimeout(_ fd: Int32, _ seconds: Int) throws {
        guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Parses a whole answer (status line, headers, body; chunked bodies joined).
    static func parse(_ text: String) throws -> HTTPGet {
        guard let split = text.range(of: "\r\n\r\n") else { throw TestFailure("no end of headers in: \(text)") }
        let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusWords = head.first?.split(separator: " ") ?? []
        guard statusWords.count >= 2, let status = Int(statusWords[1]) else {
            throw TestFailure("no status line in: \(text)")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = String(text[split.upperBound...])
        if headers["transfer-encoding"] == "chunked" {
            var joined = ""
            var rest = Substring(body)
            while let end = rest.range(of: "\r\n"), let size = Int(rest[..<end.lowerBound], radix: 16), size > 0 {
                let start = end.upperBound
                let stop = rest.utf8.index(start, offsetBy: size)
                joined += rest[start..<stop]
                rest = rest[stop...].dropFirst(2)
            }
            body = joined
        }
        return HTTPGet(status: status, headers: headers, body: body)
    }
}
