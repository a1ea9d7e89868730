/// A value of one configuration key, whichever way it was given (file, flag or default).
public enum ConfigurationValue: Sendable, Equatable, CustomStringConvertible {
    /// Text: an endpoint, a path or one of a setting's choices.
    case text(String)
    /// A list of texts (plugin directories).
    case texts([String])
    /// A whole number.
    case integer(Int)
    /// true or false.
    case boolean(Bool)

    /// The value as YAML would show it.
    public var description: String {
        switch self {
        case .text(let text): return Self.quoted(text)
        case .texts(let texts): return "[" + texts.map(Self.quoted).joined(separator: ", ") + "]"
        case .integer(let value): return String(value)
        case .boolean(let value): return value ? "true" : "false"
        }
    }

    /// `text` as a double-quoted YAML scalar.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    result += "\\x" + String(scalar.value, radix: 16).leftPadded(to: 2)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
