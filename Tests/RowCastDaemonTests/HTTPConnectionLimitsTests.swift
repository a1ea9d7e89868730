import RowCastDaemon
import RowCastHTTP
import Testing

/// The HTTP endpoint's connection limits as rowcastd reads them: the documented defaults, the
/// four keys of the configuration file and their ranges, and the names log lines give them.
@Suite("HTTP connection limits")
struct HTTPConnectionLimitsTests {
    @Test("the defaults are those of docs/OPERATIONS.md, for rowcastd and rowcast serve alike")
    func defaults() {
        let limits = DaemonConfiguration().httpConnectionLimits
        #expect(limits.headerTimeout == .seconds(60))
        #expect(limits.idleTimeout == .seconds(60))
        #expect(limits.writeTimeout == .seconds(30))
        #expect(limits.maxConnectionsPerPeer == 64)
        #expect(limits.maxHeadBytes == 32 * 1024)
        var serve = HTTPConnectionLimits()
        serve.settings = limits.settings
        #expect(serve == limits)
    }

    @Test("the keys set the limits, and log lines name the key and its flag")
    func keys() throws {
        let yaml = """
            http_header_timeout_ms: 1500
            http_idle_timeout_ms: 90000
            http_write_timeout_ms: 2000
            http_max_connections_per_peer: 8
            """
        let limits = try ConfigurationFile.apply(yaml: yaml, file: "f.yaml", to: DaemonConfiguration())
            .httpConnectionLimits
        #expect(limits.headerTimeout == .milliseconds(1500))
        #expect(limits.idleTimeout == .seconds(90))
        #expect(limits.writeTimeout == .seconds(2))
        #expect(limits.maxConnectionsPerPeer == 8)
        #expect(limits.settings.headerTimeout == "http_header_timeout_ms (--http-header-timeout-ms)")
        #expect(limits.settings.maxConnectionsPerPeer.hasPrefix("http_max_connections_per_peer"))
    }

    @Test(
        "values out of range are refused naming the key and what it takes",
        arguments: [
            ("http_header_timeout_ms: 99\n", "http_header_timeout_ms", "from 100 to 3600000"),
            ("http_idle_timeout_ms: 0\n", "http_idle_timeout_ms", "from 100 to 3600000"),
            ("http_write_timeout_ms: 3600001\n", "http_write_timeout_ms", "from 100 to 3600000"),
            ("http_max_connections_per_peer: 0\n", "http_max_connections_per_peer", "from 1 to 1000000"),
            ("http_max_connections_per_peer: many\n", "http_max_connections_per_peer", "a whole number"),
        ])
    func ranges(yaml: String, key: String, allowed: String) {
        #expect {
            _ = try ConfigurationFile.apply(yaml: yaml, file: "f.yaml", to: DaemonConfiguration())
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.key == key && error.description.contains(allowed)
        }
    }

    @Test(
        "durations are written as a flag takes them",
        arguments: [(1000, "1"), (60_000, "60"), (1500, "1.5"), (250, "0.25")])
    func seconds(milliseconds: Int, text: String) {
        #expect(HTTPConnectionLimits.seconds(.milliseconds(milliseconds)) == text)
    }
}
