/// The endpoints rowcastd announces on its ready line
/// (`rowcastd ready ingest=… control=… publish=…`), as read by the end-to-end tests and the
/// benchmark, which start it on free ports (`tcp://127.0.0.1:*`).
public struct ReadyLine: Sendable, Equatable {
    /// The bound ingest endpoint.
    public var ingest = ""
    /// The bound control endpoint.
    public var control = ""
    /// The bound publish endpoint.
    public var publish = ""
    /// The bound HTTP endpoint (`tcp://127.0.0.1:PORT`), "" when it is off.
    public var http = ""

    /// The ready line found in `text` (rowcastd's standard output so far), or nil when it has
    /// not been printed yet.
    public init?(in text: String) {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("rowcastd ready ") }) else {
            return nil
        }
        for field in line.split(separator: " ").dropFirst(2) {
            let parts = field.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "ingest": ingest = parts[1]
            case "control": control = parts[1]
            case "publish": publish = parts[1]
            case "http": http = parts[1]
            default: break
            }
        }
    }
}
