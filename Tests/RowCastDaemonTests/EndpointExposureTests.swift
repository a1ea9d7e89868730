import Foundation
import RowCastDaemon
import Testing

/// A TCP endpoint beyond loopback is refused without CURVE unless allow_insecure_tcp says so.
struct EndpointExposureTests {
    @Test(
        "loopback TCP, ipc and inproc stay on this machine",
        arguments: [
            "tcp://127.0.0.1:7701", "tcp://127.0.0.1:*", "tcp://127.1.2.3:7701", "tcp://localhost:7701",
            "tcp://lo:7701",
            "tcp://[::1]:7701", "tcp://127.0.0.1;127.0.0.1:7701", "ipc:///run/rowcast/ingest.sock", "inproc://rowcast",
        ])
    func loopback(endpoint: String) {
        #expect(!EndpointExposure.isBeyondLoopback(endpoint))
    }

    @Test(
        "every other address, interface or network transport is beyond loopback",
        arguments: [
            "tcp://0.0.0.0:7701", "tcp://*:7701", "tcp://10.0.0.5:7701", "tcp://eth0:7701", "tcp://[::]:7701",
            "tcp://example.com:7701", "tcp://127.0.0.1.example.com:7701", "ws://0.0.0.0:80/rowcast",
            "pgm://eth0;239.192.1.1:5555",
        ])
    func network(endpoint: String) {
        #expect(EndpointExposure.isBeyondLoopback(endpoint))
    }

    @Test("a non-loopback bind without CURVE is refused with the fix; allow_insecure_tcp accepts it")
    func refusedUnlessAllowed() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/rowcastd.yaml"
        try "endpoints:\n  control: \"tcp://0.0.0.0:7702\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        let source = ConfigurationSource(
            defaults: DaemonConfiguration(), file: file, overrides: ConfigurationOverrides())
        do {
            _ = try source.load()
            Issue.record("tcp://0.0.0.0 without CURVE was accepted")
        } catch {
            #expect(error.code == .insecure)
            #expect(error.key == "endpoints.control")
            #expect(error.description.contains("\"tcp://0.0.0.0:7702\" listens beyond loopback without CURVE"))
            #expect(error.description.contains("allow_insecure_tcp: true"))
        }
        try "allow_insecure_tcp: true\nendpoints:\n  control: \"tcp://0.0.0.0:7702\"\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        #expect(try source.load().controlEndpoint == "tcp://0.0.0.0:7702")

        try "endpoints:\n  control: \"tcp://0.0.0.0:7702\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        var overrides = ConfigurationOverrides()
        overrides.set("allow_insecure_tcp", .boolean(true))
        #expect(
            try ConfigurationSource(defaults: DaemonConfiguration(), file: file, overrides: overrides).load()
                .allowInsecureTCP)
    }

    @Test("allow_insecure_tcp takes only true or false")
    func booleanOnly() throws {
        #expect(throws: ConfigurationError.self) {
            try ConfigurationFile.apply(yaml: "allow_insecure_tcp: 1\n", file: "x.yaml", to: DaemonConfiguration())
        }
        #expect(
            try ConfigurationFile.apply(yaml: "allow_insecure_tcp: false\n", file: "x.yaml", to: DaemonConfiguration())
                .allowInsecureTCP == false)
    }
}
