import Hummingbird
import HummingbirdWebSocket
import Prometheus

/// `GET /metrics`: every metric of `registry` in the Prometheus text format (version 0.0.4).
/// Rendering reads the metrics' atomics and locks on the HTTP thread; the daemon's loop never
/// waits for a scrape.
public enum MetricsRoute {
    /// The path served.
    public static let path = "/metrics"
    /// The content type of the Prometheus text format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Installs `GET /metrics` rendering `registry`.
    public static func installer(_ registry: PrometheusCollectorRegistry) -> RouteInstaller {
        { router in
            router.get(RouterPath(path)) { _, _ -> Response in
                var bytes: [UInt8] = []
                registry.emit(into: &bytes)
                var headers = HTTPFields()
                headers[.contentType] = contentType
                headers[.cacheControl] = "no-store"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
            }
        }
    }
}
