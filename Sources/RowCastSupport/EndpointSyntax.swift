import RowCastJSON

/// The form of a ZeroMQ endpoint as rowcastd and rowcast accept it: `transport://address`,
/// with a transport libzmq knows. One check for both programs, so a mistyped endpoint gets the
/// same message from either.
public enum EndpointSyntax {
    /// The ZeroMQ transports accepted in an endpoint.
    public static let transports = ["tcp", "ipc", "inproc", "pgm", "epgm", "ws", "wss", "vmci", "tipc"]

    /// What is allowed, in words, for error messages.
    public static let allowed =
        "a ZeroMQ endpoint such as \"tcp://127.0.0.1:7701\" or \"ipc:///run/rowcast/control.sock\" (transports: \(transports.joined(separator: ", ")))"

    /// Whether `text` is `transport://address` with a known transport and a non-empty address.
    public static func isValid(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        let rest = text[colon...]
        guard rest.hasPrefix("://"), rest.count > 3 else { return false }
        return transports.contains(String(text[..<colon]))
    }

    /// Why `text` is not an endpoint (`must be ..., got "127.0.0.1:7702"`), or nil when it is one.
    public static func problem(with text: String) -> String? {
        isValid(text)
            ? nil : "must be \(allowed), got \(String(decoding: JSONValue.string(text).serialized(), as: UTF8.self))"
    }
}
