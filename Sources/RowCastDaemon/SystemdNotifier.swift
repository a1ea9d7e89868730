import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Sends systemd notifications (READY=1, STATUS=, WATCHDOG=1, ...) as datagrams to the Unix
/// socket named by `$NOTIFY_SOCKET`, as sd_notify(3) does, without linking libsystemd. A name
/// starting with `@` is in the abstract namespace. When `$NOTIFY_SOCKET` is not set (not run by
/// systemd) every call does nothing.
///
/// `Sendable`: its state is set once at `init` (a socket descriptor and an address); `sendto`
/// on one datagram socket is safe from several threads.
public final class SystemdNotifier: Sendable {
    /// Where the notifications go, as given in `$NOTIFY_SOCKET`; nil when disabled.
    public let socketName: String?
    private let descriptor: Int32
    private let address: [UInt8]

    /// A notifier that does nothing.
    public static let disabled = SystemdNotifier(socketName: nil)

    /// A notifier for `$NOTIFY_SOCKET` in `environment`. Throws when the variable is set but
    /// cannot be used (too long, another socket family, no socket available).
    public convenience init(environment: [String: String]) throws(NotifySocketError) {
        let name = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        try self.init(checkedSocketName: name)
    }

    private init(socketName: String?) {
        self.socketName = socketName
        descriptor = -1
        address = []
    }

    private init(checkedSocketName name: String?) throws(NotifySocketError) {
        guard let name else {
            socketName = nil
            descriptor = -1
            address = []
            return
        }
        guard name.hasPrefix("/") || name.hasPrefix("@") else {
            throw NotifySocketError(socketName: name, problem: "only a path or an abstract name (@...) is supported")
        }
        var path = Array(name.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        guard path.count < capacity else {
            throw NotifySocketError(socketName: name, problem: "the name is longer than \(capacity - 1) bytes")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw NotifySocketError(
                socketName: name, problem: "cannot create a socket: \(String(cString: strerror(errno)))")
        }
        socketName = name
        descriptor = fd
        address = path
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Whether notifications go anywhere.
    public var isEnabled: Bool { descriptor >= 0 }

    /// Sends `message`; returns false (with `errno` set) when it could not be sent, true when
    /// it was sent or the notifier is disabled.
    @discardableResult
    public func send(_ message: NotifyMessage) -> Bool {
        guard descriptor >= 0 else { return true }
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let length = withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.copyBytes(from: address)
            return MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + address.count + (address.first == 0 ? 0 : 1)
        }
        let bytes = message.bytes
        let sent = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes { buffer in
                    sendto(
                        descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), socketAddress,
                        socklen_t(length))
                }
            }
        }
        return sent == bytes.count
    }
}

/// `$NOTIFY_SOCKET` is set but cannot be used; names the socket and says why.
public struct NotifySocketError: Error, Sendable, CustomStringConvertible {
    /// The value of `$NOTIFY_SOCKET`.
    public let socketName: String
    /// What is wrong.
    public let problem: String
    /// One line for the log.
    public var description: String { "NOTIFY_SOCKET=\(socketName): \(problem)" }
}
