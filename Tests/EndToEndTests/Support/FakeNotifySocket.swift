import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A datagram socket the test owns, standing in for systemd's `$NOTIFY_SOCKET`: it collects
/// what rowcastd sends, with bounded waits.
final class FakeNotifySocket {
    /// The value for `NOTIFY_SOCKET`: a path, or `@name` in the abstract namespace.
    let name: String
    private let descriptor: Int32
    private let path: String?
    /// Every datagram received so far, in order.
    private(set) var received: [String] = []
    private var consumed = 0

    init(abstract: Bool = false) throws {
        let unique = "rowcast-notify-\(getpid())-\(UUID().uuidString.prefix(8))"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var bytes: [UInt8]
        if abstract {
            name = "@" + unique
            path = nil
            bytes = [0] + Array(unique.utf8)
        } else {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(unique + ".sock").path
            name = file
            path = file
            bytes = Array(file.utf8) + [0]
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw TestFailure("bind \(name): \(message)")
        }
    }

    /// The next datagram, waiting at most `timeout`; nil when none came.
    func receive(timeout: TimeInterval) -> String? {
        var descriptorSet = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptorSet, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        received.append(text)
        return text
    }

    /// The first datagram after the last one matched that contains the line `assignment`
    /// (`READY=1`), from those already received or arriving within `timeout`; a failure
    /// listing what came when none does.
    @discardableResult
    func waitFor(_ assignment: String, timeout: TimeInterval = 20) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            while consumed < received.count {
                let datagram = received[consumed]
                consumed += 1
                if datagram.split(separator: "\n").contains(Substring(assignment)) { return datagram }
            }
            guard Date() < deadline else { break }
            _ = receive(timeout: max(0.01, deadline.timeIntervalSinceNow))
        }
        throw TestFailure("no \(assignment) within \(timeout) s; received: \(received)")
    }

    deinit {
        Glibc.close(descriptor)
        if let path { unlink(path) }
    }
}
