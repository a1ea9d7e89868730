/// Which requests an HTTP endpoint (`rowcast serve`, rowcastd's `endpoints.http`) serves, by
/// the names and pages they come from, so that a web page the user opens cannot use the
/// endpoint behind the user's back (docs/SECURITY.md, "Browsers").
///
/// - **Host.** Every request must name the endpoint by an IP address, `localhost`, or a name
///   the operator allowed: a page of another site whose name an attacker points at 127.0.0.1
///   (DNS rebinding) names that site and is refused with 421.
/// - **Origin.** A request that changes something (any method but GET, HEAD and OPTIONS), a
///   WebSocket upgrade and a stream (a path ending in `/stream`, for Server-Sent Events) must
///   come from the endpoint's own origin or an allowed one: its `Origin` must be
///   `http://HOST` or `https://HOST` for the request's own `Host`, or allowed; without
///   `Origin`, its `Sec-Fetch-Site` must be `same-origin` or `none`. A request with neither
///   comes from a program, not a browser page, and is served. Else 403.
///
/// Pure: no clock, no I/O (`HTTPOriginPolicyTests`).
public struct HTTPOriginPolicy: Sendable, Equatable {
    /// Host names served besides IP addresses and `localhost`: a name, `.example.com` for it
    /// and every name under it, or `*` for any name (which gives up the DNS-rebinding check).
    public var allowedHosts: [String]
    /// Origins (`https://app.example.com`, `http://127.0.0.1:3000`) whose pages may stream
    /// and act, besides the endpoint's own; `*` for any.
    public var allowedOrigins: [String]
    /// Whether `Host` is checked: not for an endpoint on a Unix socket, which no page reaches.
    public var checksHost: Bool
    /// How the operator names the allowed hosts and origins, for messages: a flag or key each.
    public var hostSetting: String
    /// As `hostSetting`, for origins.
    public var originSetting: String

    /// A policy allowing `allowedHosts` and `allowedOrigins` beyond the endpoint's own.
    public init(
        allowedHosts: [String] = [], allowedOrigins: [String] = [], checksHost: Bool = true,
        hostSetting: String = "--allowed-host", originSetting: String = "--allowed-origin"
    ) {
        self.allowedHosts = allowedHosts.map { $0.lowercased() }
        self.allowedOrigins = allowedOrigins.map { Self.normalizedOrigin($0) }
        self.checksHost = checksHost
        self.hostSetting = hostSetting
        self.originSetting = originSetting
    }

    /// What the policy says of one request.
    public enum Verdict: Equatable, Sendable {
        /// Serve it.
        case serve
        /// Refuse it with `status` (421, 403 or 400) and a message that says what to change.
        case refuse(status: Int, message: String)
    }

    /// The parts of a request the policy reads.
    public struct Request: Sendable {
        /// The method, upper case.
        public var method: String
        /// The path, without the query.
        public var path: String
        /// The `Host` header, if any.
        public var host: String?
        /// The `Origin` header, if any.
        public var origin: String?
        /// The `Sec-Fetch-Site` header, if any.
        public var fetchSite: String?
        /// Whether it asks for a WebSocket upgrade.
        public var upgradesToWebSocket: Bool

        /// A request with these parts.
        public init(
            method: String, path: String, host: String?, origin: String? = nil, fetchSite: String? = nil,
            upgradesToWebSocket: Bool = false
        ) {
            self.method = method
            self.path = path
            self.host = host
            self.origin = origin
            self.fetchSite = fetchSite
            self.upgradesToWebSocket = upgradesToWebSocket
        }
    }

    /// Whether to serve `request`.
    public func verdict(for request: Request) -> Verdict {
        let host = request.host?.lowercased() ?? ""
        if checksHost {
            guard let name = Self.hostName(host) else {
                return .refuse(status: 400, message: "the request names no valid Host; send Host: ADDRESS:PORT")
            }
            guard servesName(name) else {
                return .refuse(
                    status: 421,
                    message:
                        "Host \"\(name)\" is not a name this endpoint serves: use its IP address or localhost, or allow the name with \(hostSetting)"
                )
            }
        }
        guard Self.needsOriginCheck(request) else { return .serve }
        if let origin = request.origin {
            let normalized = Self.normalizedOrigin(origin)
            if normalized != "null", normalized == "http://\(host)" || normalized == "https://\(host)" {
                return .serve
            }
            if allowedOrigins.contains("*") || allowedOrigins.contains(normalized) { return .serve }
            return .refuse(
                status: 403,
                message:
                    "a page from \(origin) may not stream or act through this endpoint; allow its origin with \(originSetting)"
            )
        }
        if let site = request.fetchSite?.lowercased(), site != "same-origin", site != "none" {
            return .refuse(
                status: 403,
                message:
                    "a \(site) request (Sec-Fetch-Site) may not stream or act through this endpoint; send it from the endpoint's own page or an origin allowed with \(originSetting)"
            )
        }
        return .serve
    }

    /// Whether the request streams or changes something (see the type's documentation). The
    /// router skips empty path components, so `/feeds/x/stream/` is a stream too.
    static func needsOriginCheck(_ request: Request) -> Bool {
        !["GET", "HEAD", "OPTIONS"].contains(request.method) || request.upgradesToWebSocket
            || request.path.split(separator: "/").last == "stream"
    }

    /// Whether `name` (lower case, no port) is served: an IP address, `localhost`, or allowed.
    func servesName(_ name: String) -> Bool {
        if name == "localhost" || Self.isIPAddress(name) { return true }
        for pattern in allowedHosts {
            if pattern == "*" || pattern == name { return true }
            if pattern.hasPrefix("."), name.hasSuffix(pattern) || name == pattern.dropFirst() { return true }
        }
        return false
    }

    /// The name of a `Host` value without its port (`[::1]` keeps its brackets); nil when it is
    /// empty or malformed.
    static func hostName(_ host: String) -> String? {
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else {
                return nil
            }
            return String(host[...close])
        }
        let parts = host.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let name = parts.first, !name.isEmpty else { return nil }
        if parts.count == 2, parts[1].isEmpty || !parts[1].allSatisfy(\.isASCIIDigit) { return nil }
        guard name.allSatisfy({ $0.isASCIILetterOrDigit || $0 == "." || $0 == "-" || $0 == "_" }) else { return nil }
        return String(name)
    }

    /// Whether `name` is an IPv4 address in dotted form or a bracketed IPv6 address.
    static func isIPAddress(_ name: String) -> Bool {
        if name.hasPrefix("[") { return name.hasSuffix("]") && name.count > 2 }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4
            && octets.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) && Int($0)! <= 255 }
    }

    /// An origin compared as browsers send it: lower case, without a trailing slash or the
    /// scheme's default port.
    static func normalizedOrigin(_ origin: String) -> String {
        var text = origin.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        if text.hasPrefix("http://"), text.hasSuffix(":80") { text.removeLast(3) }
        if text.hasPrefix("https://"), text.hasSuffix(":443") { text.removeLast(4) }
        return text
    }

    /// Why `pattern` cannot be an allowed host, or nil when it can.
    public static func problem(withHost pattern: String) -> String? {
        if pattern == "*" { return nil }
        let name = pattern.hasPrefix(".") ? String(pattern.dropFirst()) : pattern
        guard hostName(name.lowercased()) == name.lowercased(), !name.isEmpty else {
            return
                "\"\(pattern)\" is not a host name: give a name (feeds.example.com), .example.com for a domain and every name under it, or *"
        }
        return nil
    }

    /// Why `origin` cannot be an allowed origin, or nil when it can.
    public static func problem(withOrigin origin: String) -> String? {
        if origin == "*" { return nil }
        let text = normalizedOrigin(origin)
        for scheme in ["http://", "https://"] where text.hasPrefix(scheme) {
            let rest = String(text.dropFirst(scheme.count))
            if hostName(rest) != nil { return nil }
        }
        return "\"\(origin)\" is not an origin: give SCHEME://HOST[:PORT], such as https://app.example.com, or *"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
    fileprivate var isASCIILetterOrDigit: Bool { isASCII && (isLetter || isNumber) }
}
