import RowCastDaemon
import RowCastHTTP
import Testing

/// `endpoints.http`: what it accepts, what it refuses (with the reason), and that it may not
/// leave loopback unless allow_insecure_tcp says so.
struct HTTPEndpointTests {
    @Test("tcp://HOST:PORT, ipc:///path and \"\" (off) are accepted")
    func accepted() throws {
        #expect(try HTTPEndpoint.parse("tcp://127.0.0.1:7780") == .tcp(host: "127.0.0.1", port: 7780))
        #expect(try HTTPEndpoint.parse("tcp://[::1]:0") == .tcp(host: "::1", port: 0))
        #expect(try HTTPEndpoint.parse("ipc:///run/rowcast/http.sock") == .unix(path: "/run/rowcast/http.sock"))
        #expect(try HTTPEndpoint.parse("") == nil)
        #expect(HTTPEndpoint.tcp(host: "::1", port: 80).description == "tcp://[::1]:80")
    }

    @Test(
        "malformed endpoints are refused with what is wrong",
        arguments: [
            ("127.0.0.1:7780", "the transport must be tcp:// or ipc://"),
            ("tcp://127.0.0.1", "needs a port"),
            ("tcp://127.0.0.1:http", "the port must be a number"),
            ("tcp://127.0.0.1:70000", "the port must be a number"),
            ("tcp://*:7780", "needs an address"),
            ("ipc://relative.sock", "absolute path"),
        ])
    func refused(text: String, reason: String) {
        let problem = HTTPEndpoint.problem(with: text)
        #expect(problem?.contains(reason) == true, "\(text): \(problem ?? "accepted")")
    }

    @Test("a bad --http value is a configuration error naming the flag")
    func badFlag() {
        var overrides = ConfigurationOverrides()
        overrides.set("endpoints.http", .text("localhost:7780"))
        #expect(throws: ConfigurationError.self) { try overrides.apply(to: DaemonConfiguration()) }
        do {
            _ = try overrides.apply(to: DaemonConfiguration())
        } catch {
            #expect(error.description.contains("--http"))
            #expect(error.description.contains("tcp:// or ipc://"))
        }
    }

    @Test("HTTP beyond loopback is refused even with CURVE on; allow_insecure_tcp accepts it")
    func exposure() throws {
        var configuration = DaemonConfiguration()
        configuration.httpEndpoint = "tcp://0.0.0.0:7780"
        configuration.curve = true
        #expect(throws: ConfigurationError.self) { try EndpointExposure.check(configuration, file: nil) }
        configuration.allowInsecureTCP = true
        try EndpointExposure.check(configuration, file: nil)
        configuration = DaemonConfiguration()
        configuration.httpEndpoint = "ipc:///run/rowcast/http.sock"
        try EndpointExposure.check(configuration, file: nil)
    }

    @Test("the embedded default serves HTTP on loopback port 7780")
    func embeddedDefault() throws {
        #expect(DaemonConfiguration().httpEndpoint == "tcp://127.0.0.1:7780")
        #expect(try HTTPEndpoint.parse(DaemonConfiguration().httpEndpoint)?.isBeyondLoopback == false)
    }
}
