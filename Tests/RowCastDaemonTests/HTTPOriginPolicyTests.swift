import Hummingbird
import RowCastDaemon
@testable import RowCastHTTP
import RowCastJSON
import Testing

/// Which requests an HTTP endpoint serves by the names and pages they come from: DNS
/// rebinding (a foreign `Host`), pages of other origins (also other ports of loopback) and
/// cross-site requests without `Origin` are refused; programs and the endpoint's own page are
/// served.
@Suite("HTTP origin policy")
struct HTTPOriginPolicyTests {
    let policy = HTTPOriginPolicy()

    func verdict(
        _ policy: HTTPOriginPolicy, _ method: String = "GET", _ path: String = "/", host: String?,
        origin: String? = nil,
        site: String? = nil, upgrade: Bool = false
    ) -> HTTPOriginPolicy.Verdict {
        policy.verdict(
            for: HTTPOriginPolicy.Request(
                method: method, path: path, host: host, origin: origin, fetchSite: site, upgradesToWebSocket: upgrade))
    }

    func status(_ verdict: HTTPOriginPolicy.Verdict) -> Int {
        if case .refuse(let status, _) = verdict { return status }
        return 200
    }

    @Test(
        "Host: IP addresses and localhost are served, other names only when allowed",
        arguments: [
            ("127.0.0.1:8080", 200), ("[::1]:8080", 200), ("10.1.2.3", 200), ("localhost:8080", 200),
            ("LOCALHOST", 200), ("evil.example:8080", 421), ("127.0.0.1.evil.example", 421),
            ("localhost.evil.example", 421), ("", 400), ("a b", 400), ("[::1", 400), ("host:port", 400),
            ("300.1.1.1", 421),
        ])
    func hosts(host: String, expected: Int) {
        #expect(status(verdict(policy, host: host)) == expected, "\(host)")
    }

    @Test("a missing Host is refused; on a Unix socket Host is not checked")
    func missingHost() {
        #expect(status(verdict(policy, host: nil)) == 400)
        var unix = policy
        unix.checksHost = false
        #expect(status(verdict(unix, host: nil)) == 200)
        #expect(status(verdict(unix, host: "anything.example")) == 200)
    }

    @Test("allowed names: exact, a domain with every name under it, or any")
    func allowedHosts() {
        let allowing = HTTPOriginPolicy(allowedHosts: ["Feeds.Example.com", ".example.org"])
        #expect(status(verdict(allowing, host: "feeds.example.com:443")) == 200)
        #expect(status(verdict(allowing, host: "other.example.com")) == 421)
        #expect(status(verdict(allowing, host: "example.org")) == 200)
        #expect(status(verdict(allowing, host: "a.b.example.org")) == 200)
        #expect(status(verdict(allowing, host: "badexample.org")) == 421)
        #expect(status(verdict(HTTPOriginPolicy(allowedHosts: ["*"]), host: "anything.example")) == 200)
        guard case .refuse(_, let message) = verdict(policy, host: "evil.example") else {
            Issue.record("not refused")
            return
        }
        #expect(message.contains("--allowed-host"), "\(message)")
    }

    @Test("pages, assets, metrics and health need no Origin check; streams, upgrades and changes do")
    func whatIsChecked() {
        let foreign = "http://127.0.0.1:9999"
        #expect(status(verdict(policy, "GET", "/", host: "127.0.0.1:8080", origin: foreign)) == 200)
        #expect(status(verdict(policy, "GET", "/metrics", host: "127.0.0.1:8080", site: "cross-site")) == 200)
        #expect(status(verdict(policy, "GET", "/feeds/cars/stream", host: "127.0.0.1:8080", origin: foreign)) == 403)
        #expect(status(verdict(policy, "GET", "/feeds/cars/stream/", host: "127.0.0.1:8080", origin: foreign)) == 403)
        #expect(status(verdict(policy, "GET", "/feeds/cars/stream", host: "127.0.0.1:8080", upgrade: true)) == 200)
        #expect(
            status(verdict(policy, "GET", "/feeds/cars", host: "127.0.0.1:8080", origin: foreign, upgrade: true))
                == 403)
        #expect(
            status(verdict(policy, "POST", "/feeds/cars/rows/1/select", host: "127.0.0.1:8080", origin: foreign)) == 403
        )
        #expect(status(verdict(policy, "DELETE", "/x", host: "127.0.0.1:8080", site: "same-site")) == 403)
    }

    @Test("Origin: the endpoint's own (http or https for the request's Host) and allowed ones are served")
    func origins() {
        let post = { (policy: HTTPOriginPolicy, origin: String?, site: String?) in
            self.status(
                self.verdict(
                    policy, "POST", "/feeds/cars/rows/1/select", host: "127.0.0.1:8080", origin: origin, site: site))
        }
        #expect(post(policy, "http://127.0.0.1:8080", nil) == 200)
        #expect(post(policy, "https://127.0.0.1:8080/", nil) == 200)
        #expect(post(policy, "http://127.0.0.1:8081", nil) == 403)
        #expect(post(policy, "http://localhost:8080", nil) == 403)
        #expect(post(policy, "null", nil) == 403)
        #expect(post(policy, nil, "same-origin") == 200)
        #expect(post(policy, nil, "none") == 200)
        #expect(post(policy, nil, "cross-site") == 403)
        #expect(post(policy, nil, "same-site") == 403)
        #expect(post(policy, nil, nil) == 200)
        let allowing = HTTPOriginPolicy(allowedOrigins: ["https://App.Example.com:443"])
        #expect(post(allowing, "https://app.example.com", nil) == 200)
        #expect(post(allowing, "http://app.example.com", nil) == 403)
        #expect(post(HTTPOriginPolicy(allowedOrigins: ["*"]), "http://anything.example", nil) == 200)
    }

    @Test("rowcastd's http_allowed_hosts and http_allowed_origins refuse what is not a name or an origin")
    func configurationKeys() throws {
        let configuration = try ConfigurationOverrides.with(
            "http_allowed_hosts", .texts(["feeds.example.com", ".example.org"]), on: DaemonConfiguration())
        #expect(configuration.httpAllowedHosts == ["feeds.example.com", ".example.org"])
        #expect(throws: (any Error).self) {
            try ConfigurationOverrides.with("http_allowed_hosts", .texts(["http://x"]), on: DaemonConfiguration())
        }
        #expect(throws: (any Error).self) {
            try ConfigurationOverrides.with(
                "http_allowed_origins", .texts(["app.example.com"]), on: DaemonConfiguration())
        }
    }

    @Test("a refusal is valid JSON whatever the request carried: quotes, backslashes, tabs, control bytes")
    func refusalBodyIsJSON() throws {
        let message = "a page from \"x\"\t\u{1}\\ may not"
        let body = HTTPOriginMiddleware<BasicRequestContext>.errorBody(code: "forbidden_origin", message: message)
        let parsed = try JSONParser.parse(Array(body.utf8))
        #expect(parsed["error"]?["message"]?.stringValue == message)
        #expect(parsed["error"]?["code"] == "forbidden_origin")
    }

    @Test("settings are checked: host names and origins")
    func settingProblems() {
        #expect(HTTPOriginPolicy.problem(withHost: "feeds.example.com") == nil)
        #expect(HTTPOriginPolicy.problem(withHost: ".example.com") == nil)
        #expect(HTTPOriginPolicy.problem(withHost: "*") == nil)
        #expect(HTTPOriginPolicy.problem(withHost: "http://x") != nil)
        #expect(HTTPOriginPolicy.problem(withHost: "") != nil)
        #expect(HTTPOriginPolicy.problem(withHost: "a b") != nil)
        #expect(HTTPOriginPolicy.problem(withOrigin: "https://app.example.com") == nil)
        #expect(HTTPOriginPolicy.problem(withOrigin: "http://127.0.0.1:3000") == nil)
        #expect(HTTPOriginPolicy.problem(withOrigin: "*") == nil)
        #expect(HTTPOriginPolicy.problem(withOrigin: "app.example.com") != nil)
        #expect(HTTPOriginPolicy.problem(withOrigin: "ftp://x") != nil)
    }
}
