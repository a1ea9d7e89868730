/// The body of every error answer of the HTTP endpoints: `{"error":{"code","message"}}`.
enum HTTPErrorBody {
    /// `{"error":{"code","message"}}`, the message escaped as a JSON string (it may echo what
    /// a request carried, tabs and all).
    static func json(code: String, message: String) -> String {
        var escaped = ""
        for scalar in message.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20:
                escaped += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "{\"error\":{\"code\":\"\(code)\",\"message\":\"\(escaped)\"}}"
    }
}
