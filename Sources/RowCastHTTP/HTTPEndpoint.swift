/// Where rowcastd's HTTP endpoint listens, as `endpoints.http` writes it: `tcp://HOST:PORT`
/// (port 0 picks a free one) or `ipc:///path/to/socket` (a Unix domain socket, like the
/// ZeroMQ `ipc://` endpoints). An empty text turns the endpoint off.
public enum HTTPEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// A TCP listener on `host` (an address, or `localhost`) and `port`.
    case tcp(host: String, port: Int)
    /// A Unix domain socket at `path`.
    case unix(path: String)

    /// What `endpoints.http` accepts, in words, for error messages.
    public static let allowed =
        "\"\" (off), \"tcp://HOST:PORT\" such as \"tcp://127.0.0.1:7780\", or \"ipc:///path/to/http.sock\""

    /// The endpoint `text` names; nil for "" (off). Throws `HTTPEndpointError` saying what is wrong.
    public static func parse(_ text: String) throws(HTTPEndpointError) -> HTTPEndpoint? {
        if text.isEmpty { return nil }
        if text.hasPrefix("ipc://") {
            let path = String(text.dropFirst("ipc://".count))
            guard path.hasPrefix("/") else {
                throw HTTPEndpointError(
                    text, "an ipc:// endpoint needs an absolute path (ipc:///run/rowcast/http.sock)")
            }
            // sockaddr_un holds 108 bytes, the terminating zero included.
            guard path.utf8.count < 108 else {
                throw HTTPEndpointError(
                    text, "the socket path is \(path.utf8.count) bytes; at most 107 fit in a Unix socket address")
            }
            return .unix(path: path)
        }
        guard text.hasPrefix("tcp://") else { throw HTTPEndpointError(text, "the transport must be tcp:// or ipc://") }
        let address = text.dropFirst("tcp://".count)
        guard let colon = address.lastIndex(of: ":") else {
            throw HTTPEndpointError(text, "a tcp:// endpoint needs a port (tcp://127.0.0.1:7780)")
        }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host != "*" else {
            throw HTTPEndpointError(text, "a tcp:// endpoint needs an address to listen on (127.0.0.1, ::1, 0.0.0.0)")
        }
        guard let port = Int(address[address.index(after: colon)...]), (0...65535).contains(port) else {
            throw HTTPEndpointError(text, "the port must be a number from 0 to 65535 (0 picks a free one)")
        }
        return .tcp(host: host, port: port)
    }

    /// Why `text` is not an HTTP endpoint, or nil when it is one (or "").
    public static func problem(with text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return "must be \(allowed), got \"\(text)\": \(error.problem)"
        }
    }

    /// Whether other machines can reach it: TCP on an address other than loopback.
    public var isBeyondLoopback: Bool {
        guard case .tcp(let host, _) = self else { return false }
        if host == "localhost" || host == "::1" { return false }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return !(parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil })
    }

    /// `tcp://HOST:PORT` or `ipc://PATH`.
    public var description: String {
        switch self {
        case .tcp(let host, let port): return host.contains(":") ? "tcp://[\(host)]:\(port)" : "tcp://\(host):\(port)"
        case .unix(let path): return "ipc://\(path)"
        }
    }
}

/// An `endpoints.http` value that is not an HTTP endpoint.
public struct HTTPEndpointError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text given.
    public let text: String
    /// What is wrong with it.
    public let problem: String

    /// An error for `text`.
    public init(_ text: String, _ problem: String) {
        self.text = text
        self.problem = problem
    }

    /// `"text": problem`.
    public var description: String { "\"\(text)\": \(problem)" }
}
