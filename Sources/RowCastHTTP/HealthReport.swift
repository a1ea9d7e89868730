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
        "{\"status\":\(Self.quoted(state)),\"detail\":\(Self.quoted(detail))}\n"
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
