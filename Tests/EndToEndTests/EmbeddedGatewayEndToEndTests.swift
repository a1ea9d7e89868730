import Foundation
import RowCastJSON
import Testing

/// The web gateway on rowcastd's own HTTP endpoint: with fixed endpoints and CURVE off, `/`,
/// the feed page and its stream are served beside `/metrics`; with wildcard ports it is not.
/// (The gateway itself is tested through `rowcast serve` by Tests/e2e-python/test_gateway_*.)
@Suite(.serialized)
struct EmbeddedGatewayEndToEndTests {
    @Test(
        "rowcastd serves the feed list, a feed's page and its SSE stream (a snapshot first) on its HTTP endpoint",
        .timeLimit(.minutes(2)))
    func servedBesideMetrics() throws {
        let daemon = try DaemonProcess(endpoints: try FreePorts.endpoints())
        defer { daemon.stop() }
        #expect(
            try RawPeer(daemon).request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("42")])[
                "ok"] == true)
        let list = try HTTPGet.get(daemon.http, "/")
        #expect(list.status == 200)
        #expect(list.body.contains("cars"), "\(list.body)")
        let page = try HTTPGet.get(daemon.http, "/feeds/cars")
        #expect(page.status == 200)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(try HTTPGet.get(daemon.http, "/metrics").status == 200)
        #expect(try HTTPGet.get(daemon.http, "/feeds/no%20such").status == 400)

        // The stream as Server-Sent Events: read until the snapshot arrives (bounded by curl).
        let run = try CurlStream.curl([
            "-sN", "--max-time", "5", "http://" + daemon.http.dropFirst("tcp://".count) + "/feeds/cars/stream",
        ])
        #expect(run.contains("\"event\":\"snapshot\""), "\(run.prefix(500))")
        #expect(run.contains("\"id\":\"42\""))
    }

    @Test(
        "with wildcard ports (known only once bound) the gateway is not served, and rowcastd says why",
        .timeLimit(.minutes(2)))
    func notServedOnWildcardPorts() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        #expect(try HTTPGet.get(daemon.http, "/feeds/cars").status == 404)
        #expect(try HTTPGet.get(daemon.http, "/metrics").status == 200)
        #expect(
            daemon.log.contains(
                "the web gateway is not served on the HTTP endpoint: it needs fixed control and publish endpoints"))
    }
}

/// curl, for reading a stream until it times out.
enum CurlStream {
    /// What `curl arguments` printed (its exit status is not checked: --max-time ends a stream).
    static func curl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
