import RowCastJSON

/// What `GET /healthz` answers: healthy (200) or not (503), and why.
public struct HealthReport: Sendable, Equatable {
    /// Whether the daemon's loop is serving.
    public var isHealthy: Bool
    /// One word: `ok`, `starting`, `stuck`, `draining` or `stopped`.
    public var state: String
    /// A sentence for people: what is wrong, or what is fine.
    public var detail: String

    /// A report.
    public init(isHealthy: Bool, state: String, detail: String) {
        self.isHealthy = isHealthy
        self.state = state
        self.detail = detail
    }

    /// The body: `{"status":"ok","detail":"..."}`, one line.
    public var json: String {
        var writer = JSONWriter(capacity: detail.utf8.count + 32)
        writer.writeRaw("{\"status\":")
        writer.write(string: state)
        writer.writeRaw(",\"detail\":")
        writer.write(string: detail)
        writer.writeRaw("}\n")
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
