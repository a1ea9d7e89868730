/// The `--http HOST:PORT` of `rowcast serve`: where the gateway listens.
struct HTTPAddress: Equatable {
    /// The host to bind: an IPv4 address, `[IPv6]` without brackets, or a name.
    let host: String
    /// The TCP port; 0 lets the system choose (the ready line shows it).
    let port: Int

    /// Parses `HOST:PORT` (`[::1]:8080` for IPv6), also written `tcp://HOST:PORT` (as rowcastd's
    /// `--http` takes it) or `http://HOST:PORT`; the error says what is wrong.
    init(parsing given: String) throws(HTTPAddressError) {
        var text = given
        for prefix in ["tcp://", "http://"] where text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
        if let scheme = text.range(of: "://") {
            throw HTTPAddressError(
                "--http \(given): rowcast serve listens on TCP only (\(text[..<scheme.lowerBound]):// is not served); give HOST:PORT or tcp://HOST:PORT, e.g. 127.0.0.1:8080"
            )
        }
        guard let colon = text.lastIndex(of: ":") else {
            throw HTTPAddressError("--http \(given): give HOST:PORT, e.g. 127.0.0.1:8080")
        }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else {
            throw HTTPAddressError("--http \(given): the host is missing; 127.0.0.1 serves this machine only")
        }
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw HTTPAddressError("--http \(given): the port must be a number from 0 to 65535 (0: any free port)")
        }
        self.host = host
        self.port = port
    }

    /// Whether only this machine can connect: 127.0.0.0/8, ::1 or localhost.
    var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
