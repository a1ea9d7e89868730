import RowCastHTTP

extension DaemonConfiguration {
    /// The HTTP endpoint's connection limits (`http_header_timeout_ms`, `http_idle_timeout_ms`,
    /// `http_write_timeout_ms`, `http_max_connections_per_peer`), named as the configuration
    /// file and the flags name them.
    public var httpConnectionLimits: HTTPConnectionLimits {
        HTTPConnectionLimits(
            headerTimeout: .milliseconds(httpHeaderTimeoutMilliseconds),
            idleTimeout: .milliseconds(httpIdleTimeoutMilliseconds),
            writeTimeout: .milliseconds(httpWriteTimeoutMilliseconds),
            maxConnectionsPerPeer: httpMaxConnectionsPerPeer,
            settings: HTTPConnectionLimits.Settings(
                headerTimeout: "http_header_timeout_ms (--http-header-timeout-ms)",
                writeTimeout: "http_write_timeout_ms (--http-write-timeout-ms)",
                maxConnectionsPerPeer: "http_max_connections_per_peer (--http-max-connections-per-peer)"))
    }
}
