/// The text of CURVE key files, as `rowcast keygen` writes them and as ZeroMQ's own
/// certificates (zcert) spell them: `public-key = "Z85"` and `secret-key = "Z85"` lines
/// (indentation, comments starting with `#` and other lines are ignored).
enum KeyFileText {
    /// The value of the first `name = "value"` line (quotes optional), or nil.
    static func value(of name: String, in text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = trimmed[..<equals].trimmingBlanks()
            guard key == name else { continue }
            var value = Substring(trimmed[trimmed.index(after: equals)...].trimmingBlanks())
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }

    /// Every `name = "value"` line's value, in order.
    static func values(of name: String, in text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).compactMap { value(of: name, in: String($0)) }
    }
}

extension StringProtocol {
    /// The text without spaces and tabs at either end.
    func trimmingBlanks() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
