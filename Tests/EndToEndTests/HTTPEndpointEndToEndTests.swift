import Foundation
import RowCastJSON
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// rowcastd's HTTP endpoint (`endpoints.http`): on or off as configured, `/metrics` in the
/// Prometheus text format, `/healthz` healthy and stuck, a Unix socket with the ipc:// socket
/// permissions, and a bind failure that stops the start with a message naming the endpoint.
/// (Tests/e2e-python/test_metrics.py parses `/metrics` with the Prometheus client's parser.)
@Suite(.serialized)
struct HTTPEndpointEndToEndTests {
    @Test(
        "the endpoint serves /metrics and /healthz when configured, closes with a stop, and is absent with --http \"\"",
        .timeLimit(.minutes(2)))
    func onAndOff() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        #expect(daemon.http.hasPrefix("tcp://127.0.0.1:"), "ready line: \(daemon.standardOutput)")
        let health = try HTTPGet.get(daemon.http, "/healthz")
        #expect(health.status == 200)
        #expect(health.headers["content-type"] == "application/json")
        #expect(health.body.hasPrefix("{\"status\":\"ok\""), "\(health.body)")
        let metrics = try HTTPGet.get(daemon.http, "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.body.contains("# HELP rowcast_items_received_total "))
        #expect(metrics.body.contains("# TYPE rowcast_feeds gauge"))
        #expect(try HTTPGet.get(daemon.http, "/nothing-here").status == 404)
        // A stop closes the endpoint with the daemon: exit status 0, nothing listens any more.
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 15) == 0, "log:\n\(daemon.log)")
        #expect(!daemon.log.contains(" error "), "log:\n\(daemon.log)")
        #expect(!LoopbackPort.accepts(Int(daemon.http.split(separator: ":").last!)!))

        let off = try DaemonProcess(extraArguments: ["--http", ""])
        defer { off.stop() }
        #expect(off.http == "")
        #expect(!off.standardOutput.contains("http="))
    }

    @Test(
        "/metrics counts what was applied, published and refused (by code), and the rows held", .timeLimit(.minutes(2)))
    func countersMove() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        for index in 0..<3 {
            #expect(
                try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("p\(index)")])[
                    "ok"] == true)
        }
        #expect(try peer.requestText("not json").contains("invalid_json"))
        // The gauges refresh at most once a second and the counters once per pass: wait (bounded).
        let body = try Self.waitForMetrics(daemon.http) { $0.contains("rowcast_rows 3.0\n") }
        #expect(body.contains("rowcast_items_applied_total 3"))
        #expect(body.contains("rowcast_deltas_published_total 3"))
        #expect(body.contains("rowcast_items_rejected_total{code=\"invalid_json\"} 1"))
        #expect(body.contains("rowcast_feeds 1.0\n"))
        #expect(body.contains("rowcast_feed_rows{feed=\"cars\"} 3.0\n"), "\(body)")
        #expect(body.contains("rowcast_feed_series_omitted 0.0\n"))
        #expect(body.contains("rowcast_commit_duration_seconds_count"))
        #expect(body.contains("rowcast_render_duration_seconds_count{plugin=\"product\"}"))
        #expect(body.contains("rowcast_subscribers 1.0\n"))
        #expect(!body.contains("rowcast_publish_latency_seconds_count 0\n"))
    }

    @Test(
        "/healthz answers 503 stuck while the loop hangs in a plugin, and /metrics still answers",
        .timeLimit(.minutes(2)))
    func stuckLoop() throws {
        let daemon = try WatchdogEndToEndTests.inProcessDaemon(extraArguments: ["--health-stall-ms", "300"])
        defer { daemon.crash() }
        #expect(try HTTPGet.get(daemon.http, "/healthz").status == 200)
        _ = try WatchdogEndToEndTests.hangLoop(daemon)
        var health = try HTTPGet.get(daemon.http, "/healthz")
        let deadline = Date().addingTimeInterval(20)
        while health.status == 200 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            health = try HTTPGet.get(daemon.http, "/healthz")
        }
        #expect(health.status == 503)
        #expect(health.body.hasPrefix("{\"status\":\"stuck\""), "\(health.body)")
        #expect(try HTTPGet.get(daemon.http, "/metrics").status == 200)
    }

    @Test("an ipc:// endpoint is a Unix socket with socket_mode, and serves /healthz", .timeLimit(.minutes(2)))
    func unixSocket() throws {
        let directory = try TemporaryDirectory("rowcast-http")
        let path = directory.path + "/http.sock"
        let daemon = try DaemonProcess(extraArguments: ["--http", "ipc://" + path, "--socket-mode", "0600"])
        defer { daemon.stop() }
        #expect(daemon.http == "ipc://" + path)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(try HTTPGet.get(daemon.http, "/healthz").status == 200)
    }

    @Test("a port in use stops the start with a message naming endpoints.http", .timeLimit(.minutes(1)))
    func bindFailure() throws {
        let (holder, port) = try LoopbackPort.bound()
        defer { close(holder) }
        #expect(listen(holder, 1) == 0)
        let state = try TemporaryDirectory("rowcast-state")
        let run = try runRowcastdToExit(["--http", "tcp://127.0.0.1:\(port)", "--state-dir", state.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot listen on tcp://127.0.0.1:\(port) (endpoints.http)"), "\(run.stderr)")
        #expect(run.stderr.lowercased().contains("address already in use"), "\(run.stderr)")
    }

    /// `/metrics` once `ready` holds for it, waiting at most 20 s.
    static func waitForMetrics(_ endpoint: String, until ready: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(20)
        var body = try HTTPGet.get(endpoint, "/metrics").body
        while !ready(body) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            body = try HTTPGet.get(endpoint, "/metrics").body
        }
        return body
    }
}
