import Foundation

/// Loopback tcp ports that were free a moment ago: each is bound to port 0 by a throwaway
/// socket and released, so a daemon can bind them by number and bind them again after a
/// restart (ZeroMQ sets SO_REUSEADDR, so TIME_WAIT connections do not stand in the way).
enum FreePorts {
    /// `count` distinct free ports.
    static func take(_ count: Int) throws -> [Int] {
        var ports: [Int] = []
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        while ports.count < count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw TestFailure("socket() failed: \(String(cString: strerror(errno)))") }
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw TestFailure("bind() failed: \(String(cString: strerror(errno)))") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    /// Three endpoints (ingest, control, publish) on free loopback ports.
    static func endpoints() throws -> (String, String, String) {
        let ports = try take(3)
        return ("tcp://127.0.0.1:\(ports[0])", "tcp://127.0.0.1:\(ports[1])", "tcp://127.0.0.1:\(ports[2])")
    }
}
