import RowCastHTTP

/// Who can reach an endpoint: only this machine (loopback TCP, `ipc://`, `inproc://`) or the
/// network. rowcastd refuses to listen on the network without CURVE unless
/// `allow_insecure_tcp: true` says the operator accepts that anyone who reaches the port may
/// publish, reset and read every feed.
public enum EndpointExposure {
    /// Throws an `insecure` error naming the first endpoint that listens beyond loopback while
    /// CURVE is off and `allow_insecure_tcp` is false.
    public static func check(_ configuration: DaemonConfiguration, file: String?) throws(ConfigurationError) {
        // HTTP has no CURVE: beyond loopback it needs allow_insecure_tcp, whatever `curve` says.
        if !configuration.allowInsecureTCP, let http = try? HTTPEndpoint.parse(configuration.httpEndpoint),
            http.isBeyondLoopback
        {
            throw ConfigurationError(
                .insecure, file: file, key: "endpoints.http",
                problem: """
                    \(ConfigurationValue.quoted(configuration.httpEndpoint)) listens beyond loopback: HTTP has no CURVE, so anyone who \
                    can reach it could read /metrics (feed and plugin names, rates, error codes) and the routes installed beside it. \
                    Fix: bind 127.0.0.1 or an ipc:// socket (with socket_mode and socket_group), put an authenticating proxy in front, \
                    or set allow_insecure_tcp: true (--allow-insecure-tcp) to accept the risk
                    """)
        }
        guard !configuration.allowInsecureTCP, !configuration.curveEnabled else { return }
        let endpoints = [
            ("endpoints.ingest", configuration.ingestEndpoint),
            ("endpoints.control", configuration.controlEndpoint),
            ("endpoints.publish", configuration.publishEndpoint),
        ]
        for (key, endpoint) in endpoints where isBeyondLoopback(endpoint) {
            throw ConfigurationError(
                .insecure, file: file, key: key,
                problem: """
                    \(ConfigurationValue.quoted(endpoint)) listens beyond loopback without CURVE: anyone who can reach it could publish, \
                    reset and read every feed. Fix: turn CURVE on (curve: true, with client keys; see docs/OPERATIONS.md), or bind \
                    127.0.0.1 or an ipc:// endpoint, or set allow_insecure_tcp: true (--allow-insecure-tcp) to accept the risk
                    """)
        }
    }

    /// Whether `endpoint` can be reached from other machines: TCP (or WebSocket) on an address
    /// or interface other than loopback, or any other network transport (pgm, tipc, vmci).
    public static func isBeyondLoopback(_ endpoint: String) -> Bool {
        guard let separator = endpoint.range(of: "://") else { return false }
        let transport = endpoint[..<separator.lowerBound]
        var address = Substring(endpoint[separator.upperBound...])
        switch transport {
        case "ipc", "inproc":
            return false
        case "tcp", "ws", "wss":
            // tcp://[source;]host:port; the bind address is the part after any ';'.
            if let semicolon = address.lastIndex(of: ";") { address = address[address.index(after: semicolon)...] }
            if let slash = address.firstIndex(of: "/") { address = address[..<slash] }  // ws paths
            guard let colon = address.lastIndex(of: ":") else { return true }
            var host = address[..<colon]
            if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
            return !isLoopbackHost(String(host))
        default:
            return true
        }
    }

    /// Whether `host` (an address, `localhost` or an interface name) is loopback only.
    static func isLoopbackHost(_ host: String) -> Bool {
        if host == "localhost" || host == "lo" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
