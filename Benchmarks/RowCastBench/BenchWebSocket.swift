import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal WebSocket client for the gateway benchmark: a blocking TCP connect and upgrade,
/// then non-blocking reads that count the text frames beginning with a given prefix. Many of
/// them are polled from one thread, so the client costs the benchmark little. Not Sendable:
/// one thread owns it.
final class BenchWebSocket {
    /// The socket.
    let descriptor: Int32
    /// Bytes received and not yet parsed into frames.
    private var pending: [UInt8] = []
    /// How many text frames began with the counted prefix.
    private(set) var counted = 0
    /// Whether the server closed the connection (a close frame or end of stream).
    private(set) var closed = false
    /// What is counted: text frames that begin with these bytes.
    private let prefix: [UInt8]

    /// Connects to 127.0.0.1:`port`, upgrades `path`, and counts frames beginning with `prefix`.
    init(port: Int, path: String, counting prefix: String) throws {
        self.prefix = Array(prefix.utf8)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchFailure("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw BenchFailure("connect to 127.0.0.1:\(port): errno \(errno)")
        }
        let request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        _ = Array(request.utf8).withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        // The response head, read byte by byte up to its blank line (frames may follow it).
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.ends(with: [13, 10, 13, 10]) {
            guard recv(descriptor, &byte, 1, 0) == 1 else {
                close(descriptor)
                throw BenchFailure("the gateway closed the connection during the upgrade")
            }
            head.append(byte)
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            close(descriptor)
            throw BenchFailure("the gateway refused the upgrade: \(String(decoding: head.prefix(200), as: UTF8.self))")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Reads what is waiting and counts the complete frames in it.
    func readAvailable() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                pending.append(contentsOf: buffer[0..<count])
                continue
            }
            if count == 0 { closed = true }
            break
        }
        parseFrames()
    }

    /// Counts every complete frame in `pending` and drops it.
    private func parseFrames() {
        var start = 0
        while pending.count - start >= 2 {
            let opcode = pending[start] & 0x0F
            var length = Int(pending[start + 1] & 0x7F)
            var header = 2
            if length == 126 {
                guard pending.count - start >= 4 else { break }
                length = Int(pending[start + 2]) << 8 | Int(pending[start + 3])
                header = 4
            } else if length == 127 {
                guard pending.count - start >= 10 else { break }
                length = (0..<8).reduce(0) { $0 << 8 | Int(pending[start + 2 + $1]) }
                header = 10
            }
            guard pending.count - start >= header + length else { break }
            let payload = start + header
            if opcode == 8 { closed = true }
            if opcode == 1, length >= prefix.count, pending[payload..<(payload + prefix.count)].elementsEqual(prefix) {
                counted += 1
            }
            start = payload + length
        }
        if start > 0 { pending.removeFirst(start) }
    }

    deinit { close(descriptor) }
}

extension Array where Element == UInt8 {
    /// Whether the array ends with `suffix`.
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
