import Hummingbird
import HummingbirdWebSocket

/// `GET /healthz`: 200 with `{"status":"ok",...}` while the daemon's loop is serving, 503 with
/// the reason (`stuck`, `draining`, `starting`, `stopped`) otherwise. The probe is read on the
/// HTTP threads; it never waits for the loop.
public enum HealthRoute {
    /// The path served.
    public static let path = "/healthz"

    /// Installs `GET /healthz` answering from `probe`.
    public static func installer(_ probe: @escaping @Sendable () -> HealthReport) -> RouteInstaller {
        { router in
            router.get(RouterPath(path)) { _, _ -> Response in
                let report = probe()
                var headers = HTTPFields()
                headers[.contentType] = "application/json"
                headers[.cacheControl] = "no-store"
                return Response(
                    status: report.isHealthy ? .ok : .serviceUnavailable, headers: headers,
                    body: ResponseBody(byteBuffer: ByteBuffer(string: report.json))
                )
            }
        }
    }
}
